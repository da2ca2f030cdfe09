#!/usr/bin/env python3
"""rule_fixture.py CASE.db KINDS.txt | gzip > FIXTURE.sql.gz: the facts of a real case
that the diagnosis reads, as INSERT statements for an empty case (a fixture
of tests/diagnosis/RULE/): the tables its rules query and, of events, only
the kinds named in the rules' SQL (KINDS.txt, one a line; tests/t_rules.sh
makes it from src/diagnosis_*.c). The analyses' other tables are left out:
`analyze --rules-only` reads only these."""
import sqlite3
import sys

TABLES = ["rank_status", "ranks", "procs", "collectives", "pg_status", "pg_members", "process_groups",
          "comms", "fr_entries", "sysmsgs", "sources"]

db = sqlite3.connect(sys.argv[1])
kinds = [k.strip() for k in open(sys.argv[2]) if k.strip()]
out = sys.stdout


def dump(table, where="", params=()):
    cols = [r[1] for r in db.execute(f"SELECT * FROM pragma_table_info('{table}')")]
    if not cols:
        return
    rows = db.execute(f"SELECT {', '.join('quote(' + c + ')' for c in cols)} FROM {table} {where}"
                      " ORDER BY rowid", params).fetchall()
    for r in rows:
        out.write(f"INSERT INTO {table}({', '.join(cols)}) VALUES({', '.join(r)});\n")


out.write("-- made by tests/helpers/rule_fixture.py from a real case\n")
out.write("DELETE FROM sources;\n")
for t in TABLES:
    dump(t)
marks = ",".join("?" * len(kinds))
# and the events the other tables point at (a dump's entries, a rank's first error)
dump("events", f"WHERE kind IN ({marks}) OR event_id IN (SELECT event_id FROM fr_entries"
     " UNION SELECT event_id FROM collectives UNION SELECT first_error_event FROM rank_status"
     " UNION SELECT exit_event FROM rank_status UNION SELECT event_id FROM pg_status"
     " UNION SELECT event_id FROM sysmsgs)", kinds)
