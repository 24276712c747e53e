#!/usr/bin/env python3
"""Sums NVRTC's own time trace by event name: where one kernel's compile goes.

NVRTC writes a Chrome-style trace with `--fdevice-time-trace=F` (F.json, one block of events
per compile). `nvrtc_time` compiles to PTX, then to a cubin: both compiles' front end and NVVM
land in the trace, and the cubin compile then fails in ptxas, which rejects the file NVRTC
wrote ("Parsed trace file not in expected format"; CUDA 13.0), so ptxas is timed by
`compile_time.sh` instead. The file is not one JSON document, so events are read one object at
a time. Prints the number of compiles the trace holds (to divide by), then the total
milliseconds, the count and the name (with the event's detail, e.g. the function optimised) of
the largest.

  metaattn-run FILE.mlir --target=sm_90a --resource-report --dump-cuda=/tmp/k.cu
  rm -f /tmp/tr.json; NVRTC_EXTRA=--fdevice-time-trace=/tmp/tr \
    nvrtc_time /tmp/k.cu runtime/device 1    # built as compile_time.sh builds it
  python3 tools/scripts/nvrtc_trace.py /tmp/tr.json [--top 20]
"""
import argparse
import collections
import re

EVENT = re.compile(r'\{(?:[^{}]|\{[^{}]*\})*\}')


def field(obj, key, pattern):
    m = re.search(r'"%s"\s*:\s*%s' % (key, pattern), obj)
    return m.group(1) if m else None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument('trace')
    p.add_argument('--top', type=int, default=20)
    args = p.parse_args()
    text = open(args.trace).read()
    total, count = collections.Counter(), collections.Counter()
    for m in EVENT.finditer(text):
        obj = m.group(0)
        name, dur = field(obj, 'name', r'"([^"]*)"'), field(obj, 'dur', r'([0-9.]+)')
        if name is None or dur is None:
            continue
        detail = field(obj, 'detail', r'"([^"]*)"')
        key = name + (' | ' + detail[:60] if detail and detail != name else '')
        total[key] += float(dur)
        count[key] += 1
    compiles = text.count('"traceEvents"')
    print(f'{compiles} compiles in {args.trace}; milliseconds summed over them')
    for key, us in total.most_common(args.top):
        print(f'{us / 1000:9.1f} ms {count[key]:5d}  {key}')


if __name__ == '__main__':
    main()
