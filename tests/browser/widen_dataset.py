#!/usr/bin/env python3
"""Copies the synthetic dataset and gives its x86_1 system the guide's eight
message sizes, so that the browser test sees a summary as wide as a real
campaign's (8 size columns, not the fixture's 3).

Each record measured at 1024 bytes is copied to 128, 512, 4096, 8192 and
16384 bytes (file name and size_bytes changed, figures kept): the layout is
what is tested here, not the figures, and the copies keep every field the
pages read (paired ratios with their intervals included).

Usage: widen_dataset.py DATA OUT
"""
import glob
import json
import os
import shutil
import sys

EXTRA = (128, 512, 4096, 8192, 16384)


def main():
    if len(sys.argv) != 3:
        print('usage: widen_dataset.py DATA OUT', file=sys.stderr)
        return 2
    src, out = sys.argv[1], sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(src, out)
    n = 0
    for path in sorted(glob.glob(os.path.join(out, 'x86_1', 'records', '*', '*__hash_1024.json'))):
        with open(path) as fp:
            rec = json.load(fp)
        for size in EXTRA:
            rec['size_bytes'] = size
            with open(path.replace('__hash_1024.json', f'__hash_{size}.json'), 'w') as fp:
                json.dump(rec, fp, indent=1)
            n += 1
    if n == 0:
        print(f'{src}: no x86_1 record at 1024 bytes to widen', file=sys.stderr)
        return 1
    print(f'widened x86_1 to 8 sizes ({n} records added)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
