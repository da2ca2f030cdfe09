/* sql_functions.h: SQL functions available in every case connection:
 *   iso_time(us)        -> '2026-11-29T23:50:42.457Z' (NULL for NULL)
 *   iso_time_us(us)     -> '2026-11-29T23:50:42.457198Z'
 *   pci_from_bus_id(id) -> '0000:18:00' from NCCL's busId ('18000', '0x18000', '60')
 *   regexp(pattern, text) (PCRE2), so `text REGEXP 'pat'` works
 *   line_body(text)     -> the line without its wrappers ([default0]:, [rank3]:)
 *   norm_op(name)       -> ALLREDUCE, ALLGATHER, REDUCESCATTER, ... from any spelling
 *   hex_to_int(text)    -> the integer of hex digits (NCCL opCount)
 *   offset_text(ms)     -> '+54 ms', '-46.8 s', '+3 min 12 s': a signed span as the reports write it
 *   field(json, key)    -> json_extract(json, '$.key') for a top-level key, faster */
#ifndef NF_SQL_FUNCTIONS_H
#define NF_SQL_FUNCTIONS_H

#include <sqlite3.h>
#include <stddef.h>

void sql_functions_register(sqlite3 *db);
/* NCCL busId (hex digits of domain:bus:device.function packed) to "dddd:bb:dd". */
void pci_from_bus_id(const char *bus_id, char *out, size_t n);

#endif
