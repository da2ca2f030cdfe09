/* failure_kinds.h: the event kinds that mean something went wrong on the
 * rank that logged them, as an SQL list: what rank_status counts as a
 * rank's first error (analysis_rank_status.c) and what the diagnosis counts
 * as a failure before a scheduler's cancel (diagnosis_stopped.c). */
#ifndef NF_FAILURE_KINDS_H
#define NF_FAILURE_KINDS_H

/* Events that mean something went wrong on that rank (not notices about
 * another rank's failure, not configuration warnings). */
#define FAILURE_KINDS                                                                                        \
	"('pg_watchdog_timeout','pg_watchdog_exception','pg_failure_detected','pg_async_exception','pg_watchdog_stuck',"              \
	"'pg_watchdog_terminated','pg_ops_failed','pg_terminating','pg_taking_down','py_exception',"           \
	"'nccl_error_code','nccl_error_exception','nccl_socket_closed','nccl_socket_truncated',"               \
	"'nccl_ib_completion_error','nccl_ib_async_event','nccl_ibv_failed','nccl_cuda_failure',"             \
	"'nccl_ring_error','nccl_no_socket_if','nccl_net_no_interface','nccl_warn','app_error',"              \
	"'c10_exception_raised','pg_desync_timeout_at','pg_check_mismatch','pg_check_absent','pg_check_waited',"     \
	"'pg_check_failed','gloo_connection_lost')"

#endif
