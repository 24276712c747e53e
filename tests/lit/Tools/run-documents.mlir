// metaattn-run --documents=N: id inputs (i32 inputs indexed by a plain q or kv axis) hold N
// documents, sorted along the sequence, the same for the query and the key ids of equal
// lengths. Tiles whose rows and keys lie in different documents are then skipped, and tiles
// inside one document run unmasked (tile.read_bounds bounds the ids of each tile): the CPU
// executor runs the document mask files that way against the oracle, at lengths just past a
// tile, with one document, and with Sq != Skv.
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=2 --seq-q=200 --seq-kv=200 --documents=3 | FileCheck %s --check-prefixes=CHECK,NOTE
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=129 --seq-kv=129 --documents=1 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=65 --seq-kv=257 --documents=4 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=257 --seq-kv=65 --documents=2 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=1 --seq-kv=130 --documents=2 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=200 --seq-kv=200 --documents=3 --id-bounds=false | FileCheck %s
// With --prefetch-bounds (tile-prefetch-bounds) the key ids' bounds of tile j + 1 are read in
// iteration j, also in the persistent kernel and on the mma.sync path (where nothing moves).
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=2 --seq-q=333 --seq-kv=200 --documents=3 --prefetch-bounds | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=129 --seq-kv=400 --documents=4 --prefetch-bounds --persistent | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=200 --seq-kv=130 --documents=2 --prefetch-bounds --target=sm_80 | FileCheck %s
// With --skip-loads (tile-warp-specialize skip-loads) the producer copies no tile the block's
// guard skips and arrives on its stage announcing 0 bytes: sorted and unsorted ids, the
// persistent kernel (whose ring goes on across tiles), with --prefetch-bounds.
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=2 --seq-q=333 --seq-kv=200 --documents=3 --skip-loads | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=300 --skip-loads | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=129 --seq-kv=400 --documents=4 --skip-loads --persistent | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=200 --seq-kv=257 --documents=5 --skip-loads --prefetch-bounds | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s --check-prefix=DEFAULT
// RUN: not metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --documents=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --documents=4294967296 2>&1 | FileCheck %s --check-prefix=BAD
// A function without id inputs says that --documents drew nothing.
// RUN: metaattn-run %S/../../../frontend/variants/softcap.mlir --device=cpu --batch=1 --seq-q=65 --documents=2 | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: document_mask_causal (B=
// The lengths are also benchmarks/bench_variants.py's document_ids() (its --selftest).
// NOTE-NEXT: document ids (argument #3): 3 documents, sorted along the sequence; the first one's lengths 70 65 65
// NOTE-NEXT: document ids (argument #4): 3 documents, sorted along the sequence; the first one's lengths 70 65 65
// CHECK-NOT: FAIL
// CHECK: PASS document_mask_causal
// CHECK-NOT: FAIL
// CHECK: PASS document_mask_bidirectional

// DEFAULT-NOT: document ids
// DEFAULT: PASS document_mask_causal

// BAD: metaattn-run: --documents must be in [1, 2^31 - 1] (the ids are i32)

// NONE: --documents: no i32 input indexed by a plain q or kv axis, so no document ids were drawn
// NONE: PASS
