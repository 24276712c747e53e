//===- TileDataOps.cpp - Buffers, copies, gemm and reductions ----------------===//
//
// The executor's semantics of the tile ops that touch whole buffers: tile.alloc, tile.stage,
// tile.copy, tile.read, tile.fill, tile.gemm, tile.reduce and tile.scan.
//
//===----------------------------------------------------------------------===//

#include "BlockInterpreter.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::executor;

//===----------------------------------------------------------------------===//
// BufferView
//===----------------------------------------------------------------------===//

int64_t BufferView::getNumElements() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

bool BufferView::inBounds(ArrayRef<int64_t> idx) const {
  if (idx.size() != shape.size())
    return false;
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < 0 || idx[i] >= shape[i])
      return false;
  return true;
}

int64_t BufferView::offsetOf(ArrayRef<int64_t> idx) const {
  int64_t off = offset;
  for (size_t i = 0; i < idx.size(); ++i)
    off += idx[i] * strides[i];
  return off;
}

void BufferView::storeF(int64_t off, double value) const {
  if (isa<FloatType>(elementType)) {
    storage->data[off] = roundFloat(value, elementType, FloatPrecision::Float);
    return;
  }
  double t = std::isnan(value) ? 0.0 : std::trunc(value);
  storage->data[off] = static_cast<double>(wrapInt(static_cast<int64_t>(t), elementType));
}

Scalar BufferView::load(int64_t off) const {
  double v = storage->data[off];
  return isa<FloatType>(elementType) ? Scalar::ofFloat(v) : Scalar::ofInt(static_cast<int64_t>(v));
}

void BufferView::store(int64_t off, Scalar value) const {
  if (isa<FloatType>(elementType))
    storeF(off, value.f);
  else
    storage->data[off] = static_cast<double>(wrapInt(value.i, elementType));
}

/// Visits every index of a local shape (rank 1 to 3) in row-major order.
template <typename Fn> static void forEachLocalIndex(ArrayRef<int64_t> shape, Fn fn) {
  SmallVector<int64_t, 3> idx(shape.size(), 0);
  int64_t total = 1;
  for (int64_t s : shape)
    total *= s;
  for (int64_t n = 0; n < total; ++n) {
    fn(ArrayRef<int64_t>(idx));
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

LogicalResult BlockInterpreter::runAlloc(tile::AllocOp op) {
  MemRefType type = op.getBuffer().getType();
  if (!type.hasStaticShape())
    return fail(op, "buffer shape must be static");
  BufferView view;
  view.elementType = type.getElementType();
  view.shape.assign(type.getShape().begin(), type.getShape().end());
  view.strides.assign(view.shape.size(), 1);
  for (int64_t i = view.getRank() - 2; i >= 0; --i)
    view.strides[i] = view.strides[i + 1] * view.shape[i + 1];
  view.storage = std::make_shared<LocalStorage>();
  // Uninitialised memory: NaN for floats, so that reading it before writing shows up.
  double poison = isa<FloatType>(view.elementType) ? std::numeric_limits<double>::quiet_NaN() : 0.0;
  view.storage->data.assign(view.getNumElements(), poison);
  buffers[op.getBuffer()] = std::move(view);
  return success();
}

LogicalResult BlockInterpreter::runStage(tile::StageOp op) {
  const BufferView *base = buffer(op, op.getBuffer());
  const Scalar *stage = scalar(op, op.getStage());
  if (!base || !stage)
    return failure();
  if (stage->i < 0 || stage->i >= base->shape[0])
    return fail(op, "stage " + Twine(stage->i) + " is out of bounds for " + Twine(base->shape[0]) +
                        " stages");
  BufferView view = *base;
  view.offset += stage->i * base->strides[0];
  view.shape.erase(view.shape.begin());
  view.strides.erase(view.strides.begin());
  buffers[op.getResult()] = std::move(view);
  return success();
}

LogicalResult BlockInterpreter::runFill(tile::FillOp op) {
  const BufferView *view = buffer(op, op.getBuffer());
  const Scalar *value = scalar(op, op.getValue());
  if (!view || !value)
    return failure();
  forEachLocalIndex(view->shape,
                    [&](ArrayRef<int64_t> idx) { view->store(view->offsetOf(idx), *value); });
  return success();
}

//===----------------------------------------------------------------------===//
// Copies and reads
//===----------------------------------------------------------------------===//

LogicalResult BlockInterpreter::runCopy(tile::CopyOp op) {
  bool srcGlobal = isa<tile::GlobalTensorType>(op.getSource().getType());
  bool dstGlobal = isa<tile::GlobalTensorType>(op.getDest().getType());
  if (!srcGlobal && !dstGlobal) { // local to local, converting the element type
    const BufferView *src = buffer(op, op.getSource());
    const BufferView *dst = buffer(op, op.getDest());
    if (!src || !dst)
      return failure();
    if (src->shape != dst->shape)
      return fail(op, "local copy between buffers of different shapes");
    forEachLocalIndex(src->shape, [&](ArrayRef<int64_t> idx) {
      dst->storeF(dst->offsetOf(idx), src->loadF(src->offsetOf(idx)));
    });
    return success();
  }
  HostTensor *tensor = global(op, srcGlobal ? op.getSource() : op.getDest());
  const BufferView *local = buffer(op, srcGlobal ? op.getDest() : op.getSource());
  SmallVector<int64_t, 4> origin;
  if (!tensor || !local ||
      failed(indices(op, srcGlobal ? op.getSourceIndices() : op.getDestIndices(), origin)))
    return failure();
  if (!op.getDims() || op.getDims()->size() != local->shape.size() ||
      static_cast<int64_t>(origin.size()) != tensor->getRank())
    return fail(op, "dims and indices do not match the buffer and the tensor");
  ArrayRef<int64_t> dims = *op.getDims();
  if (srcGlobal) {
    copyIn(*tensor, origin, dims, *local);
    return success();
  }
  // A staged copy leaves the converted rows in its staging buffer, as the GPU's does.
  const BufferView *staging = op.getStaging() ? buffer(op, op.getStaging()) : nullptr;
  if (op.getStaging() && (!staging || staging->shape != local->shape))
    return fail(op, "staging buffer missing or not of the fragment's shape");
  SmallVector<int64_t, 4> g(origin.size());
  forEachLocalIndex(local->shape, [&](ArrayRef<int64_t> idx) {
    g.assign(origin.begin(), origin.end());
    for (size_t i = 0; i < dims.size(); ++i)
      g[dims[i]] += idx[i];
    double value = local->loadF(local->offsetOf(idx));
    if (staging) {
      staging->storeF(staging->offsetOf(idx), value);
      value = staging->loadF(staging->offsetOf(idx));
    }
    if (tensor->inBounds(g))
      tensor->set(g, value); // writes outside are skipped
  });
  return success();
}

void BlockInterpreter::copyIn(const HostTensor &tensor, ArrayRef<int64_t> origin,
                              ArrayRef<int64_t> dims, const BufferView &local) {
  SmallVector<int64_t, 4> g(origin.size());
  forEachLocalIndex(local.shape, [&](ArrayRef<int64_t> idx) {
    g.assign(origin.begin(), origin.end());
    for (size_t i = 0; i < dims.size(); ++i)
      g[dims[i]] += idx[i];
    // Zero-fill outside the tensor.
    local.storeF(local.offsetOf(idx), tensor.inBounds(g) ? tensor.get(g) : 0.0);
  });
}

LogicalResult BlockInterpreter::runRead(tile::ReadOp op) {
  HostTensor *tensor = global(op, op.getTensor());
  SmallVector<int64_t, 4> idx;
  if (!tensor || failed(indices(op, op.getIndices(), idx)))
    return failure();
  double v = tensor->inBounds(idx) ? tensor->get(idx) : 0.0;
  Type type = op.getResult().getType();
  scalars[op.getResult()] =
      isa<FloatType>(type) ? Scalar::ofFloat(v) : Scalar::ofInt(static_cast<int64_t>(v));
  return success();
}

LogicalResult BlockInterpreter::runReadBounds(tile::ReadBoundsOp op) {
  HostTensor *tensor = global(op, op.getTensor());
  SmallVector<int64_t, 4> idx;
  SmallVector<int64_t, 1> last;
  if (!tensor || failed(indices(op, op.getIndices(), idx)) ||
      failed(indices(op, ValueRange{op.getLast()}, last)))
    return failure();
  unsigned width = op.getMin().getType().getIntOrFloatBitWidth();
  int64_t lo = APInt::getSignedMaxValue(width).getSExtValue();
  int64_t hi = APInt::getSignedMinValue(width).getSExtValue();
  unsigned axis = op.getAxis();
  for (int64_t k = idx[axis]; k <= last[0]; ++k) {
    idx[axis] = k;
    auto v = tensor->inBounds(idx) ? static_cast<int64_t>(tensor->get(idx)) : int64_t(0);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  scalars[op.getMin()] = Scalar::ofInt(lo);
  scalars[op.getMax()] = Scalar::ofInt(hi);
  return success();
}

LogicalResult BlockInterpreter::runWrite(tile::WriteOp op) {
  HostTensor *tensor = global(op, op.getTensor());
  SmallVector<int64_t, 4> idx;
  if (!tensor || failed(indices(op, op.getIndices(), idx)))
    return failure();
  const Scalar *value = scalar(op, op.getValue());
  if (!value)
    return failure();
  if (tensor->inBounds(idx))
    tensor->set(idx,
                isa<FloatType>(op.getValue().getType()) ? value->f : static_cast<double>(value->i));
  return success();
}

//===----------------------------------------------------------------------===//
// gemm and reduce
//===----------------------------------------------------------------------===//

LogicalResult BlockInterpreter::runGemm(tile::GemmOp op) {
  const BufferView *a = buffer(op, op.getA());
  const BufferView *b = buffer(op, op.getB());
  const BufferView *c = buffer(op, op.getC());
  if (!a || !b || !c)
    return failure();
  // An async gemm runs when a tile.gemm_wait retires it, on what its buffers hold then: a
  // kernel that touches an operand before the wait computes a wrong result here too.
  if (op.getAsync()) {
    inFlight.push_back({op, *a, *b, *c});
    return success();
  }
  return multiply(op, a, b, c);
}

LogicalResult BlockInterpreter::runGemmWait(tile::GemmWaitOp op) {
  while (inFlight.size() > static_cast<size_t>(op.getPending())) {
    InFlightGemm gemm = inFlight.front();
    inFlight.pop_front();
    if (failed(multiply(gemm.op, &gemm.a, &gemm.b, &gemm.c)))
      return failure();
  }
  return success();
}

LogicalResult BlockInterpreter::multiply(tile::GemmOp op, const BufferView *a, const BufferView *b,
                                         const BufferView *c) {
  bool transA = op.getTransposeA(), transB = op.getTransposeB();
  int64_t m = a->shape[transA ? 1 : 0], k = a->shape[transA ? 0 : 1];
  int64_t n = transB ? b->shape[0] : b->shape[1];
  int64_t bk = transB ? b->shape[1] : b->shape[0];
  if (bk != k || c->shape[0] != m || c->shape[1] != n)
    return fail(op, "operand shapes do not agree");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t cOff = c->offsetOf({i, j});
      float acc = static_cast<float>(c->loadF(cOff));
      for (int64_t l = 0; l < k; ++l) {
        float av = static_cast<float>(a->loadF(transA ? a->offsetOf({l, i}) : a->offsetOf({i, l})));
        float bv = static_cast<float>(b->loadF(transB ? b->offsetOf({j, l}) : b->offsetOf({l, j})));
        acc += av * bv; // 16-bit products are exact in f32; accumulation rounds to f32
      }
      c->storeF(cOff, acc);
    }
  return success();
}

LogicalResult BlockInterpreter::runReduce(tile::ReduceOp op) {
  const BufferView *src = buffer(op, op.getSource());
  const BufferView *dst = buffer(op, op.getDest());
  if (!src || !dst)
    return failure();
  if (src->getRank() != 2 || dst->getRank() != 1 || src->shape[0] != dst->shape[0])
    return fail(op, "reduces a 2-D buffer into one value per row");
  tile::ReduceKind kind = op.getKind();
  bool isMax = kind == tile::ReduceKind::max;
  for (int64_t i = 0; i < src->shape[0]; ++i) {
    float acc = isMax ? -std::numeric_limits<float>::infinity() : 0.0f;
    for (int64_t j = 0; j < src->shape[1]; ++j) {
      float v = static_cast<float>(src->loadF(src->offsetOf({i, j})));
      if (isMax)
        acc = std::isnan(v) ? v : (v > acc ? v : acc);
      else
        acc += kind == tile::ReduceKind::abs_sum ? std::fabs(v) : v;
    }
    int64_t dOff = dst->offsetOf({i});
    if (op.getAccumulate()) {
      float old = static_cast<float>(dst->loadF(dOff));
      acc = isMax ? (std::isnan(old) ? old : std::max(old, acc)) : old + acc;
    }
    dst->storeF(dOff, acc);
  }
  return success();
}

LogicalResult BlockInterpreter::runScan(tile::ScanOp op) {
  const BufferView *buf = buffer(op, op.getBuffer());
  if (!buf)
    return failure();
  int64_t rows = buf->shape[0], cols = buf->getRank() > 1 ? buf->shape[1] : 1;
  for (int64_t j = 0; j < cols; ++j) {
    float acc = 0.0f;
    for (int64_t i = 0; i < rows; ++i) {
      SmallVector<int64_t, 2> idx = {i};
      if (buf->getRank() > 1)
        idx.push_back(j);
      int64_t off = buf->offsetOf(idx);
      acc += static_cast<float>(buf->loadF(off));
      buf->storeF(off, acc);
    }
  }
  return success();
}
