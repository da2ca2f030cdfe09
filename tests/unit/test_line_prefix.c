/* Unit tests of the line prefix parser: wrappers, families, clocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "line_prefix.h"
#include "timestamp.h"

struct want {
	const char *line;
	int family;
	int rank, local_rank;
	char level;
	const char *host;
	long pid;
	int clock;
	const char *when; /* ISO time or NULL */
	const char *msg_start;
};

static const struct want cases[] = {
	{"[default1]:[rank3]:[E1129 23:56:08.174523844 ProcessGroupNCCL.cpp:689] [Rank 1] Watchdog caught",
	 FAM_C10, 3, 1, 'E', NULL, -1, CLOCK_NOYEAR, "2026-11-29T23:56:08.174Z", "[Rank 1] Watchdog"},
	{"[rank3]:[E219 08:58:32.606667496 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG GUID 3 Rank 3] x",
	 FAM_C10, 3, -1, 'E', NULL, -1, CLOCK_NOYEAR, "2026-02-19T08:58:32.606Z", "[PG ID 2"},
	{"[rank6]:[E ProcessGroupNCCL.cpp:475] [PG 0 (default_pg) Rank 6] Watchdog",
	 FAM_C10, 6, -1, 'E', NULL, -1, CLOCK_NONE, NULL, "[PG 0 (default_pg)"},
	{"gpu-node03:881:881 [1] NCCL INFO NCCL version 2.28.9+cuda13.0",
	 FAM_NCCL, -1, -1, 'I', "gpu-node03", 881, CLOCK_NONE, NULL, "NCCL version"},
	{"node7.cluster.local:12:13 [0] NCCL INFO Using network IB",
	 FAM_NCCL, -1, -1, 'I', "node7", 12, CLOCK_NONE, NULL, "Using network IB"},
	{"[default0]:[2026-11-29 23:56:54] gpu-node01:1153:1691 [0] misc/socket.cc:72 NCCL WARN socketProgress: x",
	 FAM_NCCL, -1, 0, 'W', "gpu-node01", 1153, CLOCK_FULL, "2026-11-29T23:56:54.000Z", "socketProgress: x"},
	{"I1129 23:47:28.713000 604 torch/distributed/launcher/api.py:224] Starting elastic_operator",
	 FAM_GLOG, -1, -1, 'I', NULL, 604, CLOCK_NOYEAR, "2026-11-29T23:47:28.713Z", "Starting elastic"},
	{"I0527 15:16:51.665375 58626 ProcessGroupNCCL.cpp:869] [PG 0 Rank 2] Watchdog",
	 FAM_C10, -1, -1, 'I', NULL, 58626, CLOCK_NOYEAR, "2026-05-27T15:16:51.665Z", "[PG 0 Rank 2]"},
	{"I20241209 23:39:42.495619 138559122262912 ProcessGroupNCCL.cpp:905] options",
	 FAM_C10, -1, -1, 'I', NULL, 138559122262912L, CLOCK_FULL, "2024-12-09T23:39:42.495Z", "options"},
	{"[default1]:2026-11-29 23:55:39,708 INFO [train] rank=3 host=gpu-node02",
	 FAM_PYLOG, -1, 1, 'I', NULL, -1, CLOCK_FULL, "2026-11-29T23:55:39.708Z", "[train] rank=3"},
	{"[2023-10-10 10:10:10,123] torch.distributed.run: [WARNING] msg",
	 FAM_PYLOG, -1, -1, 'W', NULL, -1, CLOCK_FULL, "2023-10-10T10:10:10.123Z", "msg"},
	{"[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234",
	 FAM_KERNEL, -1, -1, 0, NULL, -1, CLOCK_BOOT, NULL, "NVRM: Xid"},
	{"<4>[ 12.5] eth0: Link down", FAM_KERNEL, -1, -1, 0, NULL, -1, CLOCK_BOOT, NULL, "eth0: Link down"},
	{"[Sun Nov 29 23:50:12 2026] mlx5_core 0000:3b:00.1 eth1: Link down",
	 FAM_KERNEL, -1, -1, 0, NULL, -1, CLOCK_FULL, "2026-11-29T23:50:12.000Z", "mlx5_core"},
	{"Nov 29 23:50:12 gpu-node02 kernel: NVRM: Xid (PCI:0000:10:1c): 63",
	 FAM_KERNEL, -1, -1, 0, "gpu-node02", -1, CLOCK_NOYEAR, "2026-11-29T23:50:12.000Z", "NVRM: Xid"},
	{"Nov 29 23:50:12 gpu-node02 kernel: [ 9.25] eth1: Link down",
	 FAM_KERNEL, -1, -1, 0, "gpu-node02", -1, CLOCK_NOYEAR, "2026-11-29T23:50:12.000Z", "eth1: Link down"},
	{"2026-11-29T23:50:12+0100 gpu-node02 kernel: eth1: Link down",
	 FAM_KERNEL, -1, -1, 0, "gpu-node02", -1, CLOCK_FULL, "2026-11-29T22:50:12.000Z", "eth1: Link down"},
	{"  time      : 2026-11-29_23:56:54", FAM_PLAIN, -1, -1, 0, NULL, -1, CLOCK_NONE, NULL, "  time"},
	{"[0]:", FAM_PLAIN, -1, -1, 0, NULL, -1, CLOCK_NONE, NULL, "[0]:"},
	{"", FAM_PLAIN, -1, -1, 0, NULL, -1, CLOCK_NONE, NULL, ""},
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct want *w = &cases[i];
		struct line_parts p;
		line_parts_parse(w->line, strlen(w->line), false, &p);
		print_message("case %zu: %s\n", i, w->line);
		assert_int_equal(p.family, w->family);
		assert_int_equal(p.rank, w->rank);
		assert_int_equal(p.local_rank, w->local_rank);
		assert_int_equal(p.level, w->level);
		assert_int_equal(p.clock, w->clock);
		if (w->host) {
			assert_int_equal(p.host_len, strlen(w->host));
			assert_memory_equal(p.host, w->host, p.host_len);
		}
		if (w->pid >= 0)
			assert_int_equal(p.pid, w->pid);
		assert_true(p.msg_len >= strlen(w->msg_start));
		assert_memory_equal(p.msg, w->msg_start, strlen(w->msg_start));
		if (w->when) {
			int64_t t;
			assert_true(line_parts_time(&p, 2026, INT64_MIN, &t));
			char iso[40];
			ts_format_iso(t, iso, sizeof(iso));
			assert_string_equal(iso, w->when);
		}
	}
}

static void test_srun_label(void **state)
{
	(void)state;
	const char *l = "12: [rank12]:[E1129 23:56:08.1 ProcessGroupNCCL.cpp:1] x";
	struct line_parts p;
	assert_true(line_has_srun_label(l, strlen(l)));
	line_parts_parse(l, strlen(l), true, &p);
	assert_int_equal(p.srun_task, 12);
	assert_int_equal(p.rank, 12);
	assert_int_equal(p.family, FAM_C10);
	line_parts_parse(l, strlen(l), false, &p);
	assert_int_equal(p.srun_task, -1);
}

static void test_boot_time(void **state)
{
	(void)state;
	const char *l = "[  100.500000] eth0: Link down";
	struct line_parts p;
	line_parts_parse(l, strlen(l), false, &p);
	int64_t t;
	assert_false(line_parts_time(&p, 2026, INT64_MIN, &t));
	assert_true(line_parts_time(&p, 2026, 1000000000, &t));
	assert_int_equal(t, 1000000000 + 100500000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_srun_label),
		cmocka_unit_test(test_boot_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
