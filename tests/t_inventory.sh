#!/bin/sh
# The node inventory (grammars/90-inventory.rules, src/analysis_inventory.c):
# nvidia-smi -q/-L/topo -m, ip -br addr, ip -s link, ibstat and ibv_devinfo,
# gathered by contrib/collect-logs.sh with the stand-ins of
# tests/fixtures/inventory, become tables gpus, nics and topo tied to the
# ranks; and the findings that need both the hardware and the NCCL logs.
# The fixture job: 2 nodes x 2 GPUs over IB; rank 0 (GPU0, closest NIC
# mlx5_0 at PIX) receives through mlx5_1 (SYS); gpu-node01's mlx5_2 is down;
# gpu-node02 counts RX errors on eth0 (the bootstrap interface), trained
# mlx5_1 at 200 Gb/s and runs another driver.
. tests/lib.sh
TMP=$(cd "$TMP" && pwd)
case $NF_BIN in /*) ;; *) NF_BIN="$NF_ROOT/$NF_BIN" ;; esac
fix="$NF_ROOT/tests/fixtures/inventory"

db=$(sh tests/helpers/inventory_case.sh "$TMP/ib")
check_eq "inventory/build-exit" 0 "$?"

# every inventory line is an event of its own rule (no other rule takes them)
check_eq "inventory/no-foreign-events" "" "$(sql "$db" "SELECT DISTINCT e.kind FROM events e JOIN sources s USING (source_id)
	WHERE s.path LIKE '%/system/%' AND s.kind = 'text' AND e.kind NOT LIKE 'smi_%' AND e.kind NOT LIKE 'ip_%'
	AND e.kind NOT LIKE 'ibstat_%' AND e.kind NOT LIKE 'ibv_%' AND e.kind <> 'collect_header'")"

check_eq "inventory/gpus" "gpu-node01 0 0000:00:06 1654123012345 mlx5_0 PIX 0
gpu-node01 1 0000:00:07 1654123012346 mlx5_1 PIX 1
gpu-node02 0 0000:00:06 1654123012377 mlx5_0 PIX 2
gpu-node02 1 0000:00:07 1654123012378 mlx5_1 PIX 3" \
	"$(sql "$db" "SELECT host, gpu, pci, serial, nearest_nic, nearest_link, rank FROM gpus ORDER BY host, gpu" | tr '\t' ' ')"
check_eq "inventory/gpu-identity" "NVIDIA H200|GPU-8f6e2b51-3c1a-4b7e-9d52-0a4f6c3e8b17|570.86.15|0-31|0" \
	"$(sql "$db" "SELECT name || '|' || uuid || '|' || driver || '|' || cpu_affinity || '|' || numa FROM gpus WHERE host = 'gpu-node01' AND gpu = 0")"
check_eq "inventory/topo-rows" 16 "$(sql "$db" "SELECT count(*) FROM topo")"
check_eq "inventory/topo-nic-names" "mlx5_0 NIC0 SYS" "$(sql "$db" "SELECT peer, label, link FROM topo WHERE host = 'gpu-node01' AND gpu = 1 AND peer = 'mlx5_0'" | tr '\t' ' ')"
check_eq "inventory/ib-ports" "gpu-node01 mlx5_0 1 Active LinkUp 400.0 NIC0 ibv_devinfo, ibstat
gpu-node01 mlx5_1 1 Active LinkUp 400.0 NIC1 ibv_devinfo, ibstat
gpu-node01 mlx5_2 1 Down Polling 10.0 NIC2 ibv_devinfo, ibstat
gpu-node02 mlx5_0 1 Active LinkUp 400.0 NIC0 ibstat
gpu-node02 mlx5_1 1 Active LinkUp 200.0 NIC1 ibstat
gpu-node02 mlx5_2 1 Active LinkUp 400.0 NIC2 ibstat" \
	"$(sql "$db" "SELECT host, name, port, state, phys_state, rate_gbps, label, evidence FROM nics WHERE kind = 'rdma' ORDER BY host, name" | tr '\t' ' ')"
check_eq "inventory/netdevs" "gpu-node02 eth0 UP 10.0.0.2/16 fe80::fc:ff:fe00:1/64 9000 1843 112 [2,3]" \
	"$(sql "$db" "SELECT host, name, state, addrs, mtu, rx_errors, rx_dropped, used_by FROM nics WHERE kind = 'netdev' AND host = 'gpu-node02' AND name = 'eth0'" | tr '\t' ' ')"
check_eq "inventory/nic-used-by" "gpu-node01 mlx5_1 [0,1]
gpu-node02 mlx5_0 [2]
gpu-node02 mlx5_1 [3]" "$(sql "$db" "SELECT host, name, used_by FROM nics WHERE kind = 'rdma' AND used_by IS NOT NULL ORDER BY host, name" | tr '\t' ' ')"

f() { sql "$db" "SELECT severity || ' ' || ranks || ' ' || summary FROM findings WHERE kind = '$1' ORDER BY finding_id"; }
check_eq "inventory/nic-not-closest" "warning [0] rank 0 uses NIC mlx5_1 but its GPU's closest NIC is mlx5_0 (topo: PIX; mlx5_1 is SYS)" "$(f nic_not_closest)"
check_eq "inventory/nic-not-closest-evidence" 2 "$(sql "$db" "SELECT count(*) FROM evidence WHERE finding_id = (SELECT finding_id FROM findings WHERE kind = 'nic_not_closest')")"
check_eq "inventory/nic-down" "info [] mlx5_2 port 1 on gpu-node01 is Down (physical state Polling) per ibv_devinfo, ibstat: NCCL could not use it" "$(f nic_down)"
check_eq "inventory/nic-errors" "warning [2,3] eth0 on gpu-node02, which NCCL used (ranks 2, 3), counted 1843 RX errors, 0 TX errors and 0 carrier errors (112 RX dropped) by ip -s link" "$(f nic_errors)"
check_eq "inventory/nic-slow" "warning [3] mlx5_1 port 1 on gpu-node02 runs at 200 Gb/s; most of the job's other 4 active IB/RoCE ports run at 400 Gb/s" "$(f nic_slow)"
check_eq "inventory/driver-mismatch" "warning [] the GPU driver differs between hosts: 550.54.15 on 1 host(s) (gpu-node02); 570.86.15 on 1 host(s) (gpu-node01)" "$(f driver_mismatch)"

# analyze again: the same tables, not twice as many rows
before=$(sql "$db" "SELECT (SELECT count(*) FROM gpus) || ' ' || (SELECT count(*) FROM nics) || ' ' || (SELECT count(*) FROM topo) || ' ' || (SELECT count(*) FROM findings WHERE kind LIKE 'nic_%')")
"$NF_BIN" analyze "$db" -q > /dev/null 2>&1
check_eq "inventory/analyze-again" "$before" "$(sql "$db" "SELECT (SELECT count(*) FROM gpus) || ' ' || (SELECT count(*) FROM nics) || ' ' || (SELECT count(*) FROM topo) || ' ' || (SELECT count(*) FROM findings WHERE kind LIKE 'nic_%')")"

# a corpus job (sockets over lo) with gpu-node02's inventory: the culprit's
# GPU by serial, and sockets although IB ports are active
job="$TMP/stall"
mkdir -p "$job"
tar -xzf testdata/corpus/stall.tar.gz -C "$job"
node="$job/job-stall/gpu-node02"
PATH="$fix/bin:$PATH" NF_FAKE_NODE="$fix/gpu-node02" sh contrib/collect-logs.sh -q -H gpu-node02 -o "$job" \
	--fr-prefix "$node/fr/nccl_trace_rank_" --logs "$node" > /dev/null 2>&1
rm -rf "$node"
mv "$job/gpu-node02.tar.gz" "$job/job-stall/"
"$NF_BIN" ingest "$job/job-stall" -o "$TMP/stall.db" -q > /dev/null 2>&1
db="$TMP/stall.db"
check_eq "inventory/culprit-gpu" "info [2] rank 2 (gpu-node02) ran on GPU 0: NVIDIA H200, PCI 00000000:00:06.0, serial 1654123012377, UUID GPU-5d2a1c3e-8f4b-4a6c-9e1d-2b7f0c8a9d31" "$(f culprit_gpu)"
check_eq "inventory/socket-despite-ib" "warning [2,3] NCCL used NET/Socket on gpu-node02 although the node inventory shows 3 active IB/RoCE port(s) there (mlx5_0,mlx5_1,mlx5_2)" "$(f socket_despite_ib)"

# a job without inventory: empty tables, no inventory finding
db=$(ingest_case stall)
check_eq "inventory/none" "0 0 0 0" "$(sql "$db" "SELECT (SELECT count(*) FROM gpus) || ' ' || (SELECT count(*) FROM nics) || ' ' || (SELECT count(*) FROM topo) || ' ' || (SELECT count(*) FROM findings WHERE kind IN ('nic_not_closest','nic_down','nic_errors','nic_slow','socket_despite_ib','driver_mismatch','culprit_gpu'))")"
