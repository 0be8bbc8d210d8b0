#!/usr/bin/env python3
"""Leader transfers per range from controller event lines (BENCHMARKS.md, "Leader transfers in the demo").

Reads the output of `./rangekv demo` (its live `event #N hh:mm:ss leader-transfer [rX] ...` lines and its
`failed writes: N` line) or of `rangekv events --limit 0` (same event line format), and prints failed
writes, transfers, ranges transferred, the most transfers of one range within any 60 s, and returns to a
leader of less than 60 s before (A -> B -> A).

    rangekv-bench/scripts/leader-transfers.py FILE
"""
import collections
import re
import sys

text = open(sys.argv[1]).read()
failed = re.findall(r'failed writes:? (\d+)', text)
events = {}
for num, h, m, s, r, a, b in re.findall(
        r'#(\d+) (\d\d):(\d\d):(\d\d) leader-transfer \[r(\d+)[^\]]*\] r\d+ leader (n\d+) -> (n\d+)', text):
    events[int(num)] = (int(h) * 3600 + int(m) * 60 + int(s), int(r), a, b)  # an event printed twice counts once
by_range = collections.defaultdict(list)
for t, r, a, b in sorted(events.values()):
    by_range[r].append((t, a, b))
most = max((sum(1 for u, _, _ in l[i:] if u - l[i][0] < 60) for l in by_range.values() for i in range(len(l))),
           default=0)
returns = sum(1 for l in by_range.values() for i in range(len(l))
              if any(l[j][0] - l[i][0] < 60 and l[j][2] == l[i][1] for j in range(i + 1, len(l))))
worst = sorted(((len(l), r) for r, l in by_range.items()), reverse=True)[:3]
print(f"failed writes {failed[-1] if failed else 'n/a'}; leader transfers {len(events)} over {len(by_range)} ranges;"
      f" most on one range in any 60 s: {most}; A->B->A within 60 s: {returns};"
      f" most per range overall: {', '.join(f'r{r} {n}' for n, r in worst) or '-'}")
