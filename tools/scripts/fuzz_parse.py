#!/usr/bin/env python3
"""Mutation fuzzing of the tools on malformed .mlir: a crash is a bug, a diagnostic is not.

Takes the variant files (frontend/variants/, tests/lit/Variants/), applies one or two random
mutations (delete or swap a line, change a number, an element type or an index type, rename a
value), and runs `metaattn-opt --metaattn-lower` and `metaattn-run --device=cpu` on the result.
A run that dies on a signal, or prints "Stack dump", "Assertion" or "LLVM ERROR", is reported
and its input kept as crash_<n>_<tool>.mlir in --out. Deterministic for a --seed.

  python3 tools/scripts/fuzz_parse.py --bin build/bin --seed 2 --count 400 --out /tmp/fuzz
"""
import argparse
import glob
import os
import random
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mutate(text, rng):
    lines = text.split('\n')
    i = rng.randrange(len(lines))
    kind = rng.randrange(6)
    if kind == 0:
        del lines[i]
    elif kind == 1:
        numbers = list(re.finditer(r'\d+', lines[i]))
        if numbers:
            m = rng.choice(numbers)
            value = rng.choice(['0', '1', '3', '7', '65', '1000', '-1', '4096'])
            lines[i] = lines[i][:m.start()] + value + lines[i][m.end():]
    elif kind == 2:
        lines[i] = lines[i].replace('bf16', rng.choice(['f32', 'f16', 'i32', 'f64']))
    elif kind == 3:
        lines[i] = lines[i].replace('index', rng.choice(['i32', 'f32']))
    elif kind == 4:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines[i] = lines[i].replace('%', '%x', 1)
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--bin', default=os.path.join(ROOT, 'build', 'bin'))
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--count', type=int, default=100)
    parser.add_argument('--out', default='/tmp/metaattn-fuzz')
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    files = sorted(glob.glob(os.path.join(ROOT, 'frontend', 'variants', '*.mlir')) +
                   glob.glob(os.path.join(ROOT, 'tests', 'lit', 'Variants', '*.mlir')))
    case = os.path.join(args.out, 'case.mlir')
    crashes = 0
    for n in range(args.count):
        source = rng.choice(files)
        text = open(source).read()
        for _ in range(rng.randrange(1, 3)):
            text = mutate(text, rng)
        with open(case, 'w') as f:
            f.write(text)
        for cmd in ([os.path.join(args.bin, 'metaattn-opt'), case, '--metaattn-lower'],
                    [os.path.join(args.bin, 'metaattn-run'), case, '--device=cpu', '--batch=1',
                     '--seq-q=5', '--seq-kv=9']):
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                print(f'timeout: {os.path.basename(cmd[0])} on a mutant of {source}')
                continue
            died = r.returncode < 0 or r.returncode >= 128 or any(
                s in r.stderr for s in ('Stack dump', 'Assertion', 'LLVM ERROR'))
            if died:
                crashes += 1
                kept = os.path.join(args.out, f'crash_{n}_{os.path.basename(cmd[0])}.mlir')
                with open(kept, 'w') as f:
                    f.write(text)
                print(f'crash (exit {r.returncode}): {os.path.basename(cmd[0])} on a mutant of '
                      f'{os.path.relpath(source, ROOT)}, kept as {kept}')
        if (n + 1) % 50 == 0:
            print(f'{n + 1} of {args.count} mutants, {crashes} crashes', flush=True)
    print(f'{args.count} mutants, {crashes} crashes')
    return 1 if crashes else 0


if __name__ == '__main__':
    raise SystemExit(main())
