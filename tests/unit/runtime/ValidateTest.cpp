//===- ValidateTest.cpp - validate(), computeGrid() and packArguments() on host tensors ----===//

#include "metaattn/Runtime/KernelSignature.h"
#include "metaattn/Runtime/Launch.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <memory>

using namespace metaattn::rt;
using namespace metaattn::rt::test;

namespace {

/// q[B,Sq,H,64], k[B,Skv,Hkv,64], v[B,Skv,Hkv,64] (bf16) -> o[B,Sq,H,64] (bf16).
KernelSignature attentionSignature() {
  KernelSignature signature;
  signature.entry = "attn_fwd";
  auto param = [](std::string name, std::vector<std::string> symbols, bool isOutput = false) {
    TensorParam p;
    p.name = std::move(name);
    p.rank = 4;
    p.dtype = kBFloat16;
    p.sizes = {-1, -1, -1, 64};
    p.symbols = std::move(symbols);
    p.isOutput = isOutput;
    return p;
  };
  signature.params = {param("q", {"B", "Sq", "H", ""}), param("k", {"B", "Skv", "Hkv", ""}),
                      param("v", {"B", "Skv", "Hkv", ""}),
                      param("o", {"B", "Sq", "H", ""}, /*isOutput=*/true)};
  signature.grid[0] = {/*tensor=*/0, /*dim=*/1, /*divisor=*/64};
  signature.grid[1] = {0, 2, 1};
  signature.grid[2] = {0, 0, 1};
  return signature;
}

/// Owns one tensor per attention parameter; individual tensors can be replaced.
struct AttentionCall {
  std::vector<std::unique_ptr<HostTensor>> tensors;

  AttentionCall() {
    tensors.push_back(std::make_unique<HostTensor>(std::vector<int64_t>{2, 100, 8, 64}, kBFloat16));
    tensors.push_back(std::make_unique<HostTensor>(std::vector<int64_t>{2, 77, 4, 64}, kBFloat16));
    tensors.push_back(std::make_unique<HostTensor>(std::vector<int64_t>{2, 77, 4, 64}, kBFloat16));
    tensors.push_back(std::make_unique<HostTensor>(std::vector<int64_t>{2, 100, 8, 64}, kBFloat16));
  }
  void replace(int index, std::vector<int64_t> shape, DLDataType dtype = kBFloat16,
               std::vector<int64_t> strides = {}) {
    tensors[index] =
        std::make_unique<HostTensor>(std::move(shape), dtype, kDLCPU, std::move(strides));
  }
  TensorList list() const {
    TensorList result;
    for (const auto &tensor : tensors)
      result.push_back(tensor->get());
    return result;
  }
};

ValidateOptions hostOptions() {
  ValidateOptions options;
  options.allowHostTensors = true;
  return options;
}

Status validateHost(const AttentionCall &call) {
  return validate(attentionSignature(), call.list(), hostOptions());
}

TEST(ValidateTest, AcceptsAValidCall) {
  AttentionCall call;
  Status status = validateHost(call);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(ValidateTest, RejectsHostTensorsUnlessAllowed) {
  AttentionCall call;
  Status status = validate(attentionSignature(), call.list());
  EXPECT_EQ(status.message(), "tensor 'q': is on cpu, expected a CUDA device tensor (kDLCUDA)");
}

TEST(ValidateTest, AcceptsCudaTensorsAndChecksTheOrdinal) {
  AttentionCall call;
  for (auto &tensor : call.tensors)
    tensor->tensor.device = {kDLCUDA, 1};
  EXPECT_TRUE(validate(attentionSignature(), call.list()).ok());
  ValidateOptions options;
  options.deviceOrdinal = 0;
  EXPECT_EQ(validate(attentionSignature(), call.list(), options).message(),
            "tensor 'q': is on cuda:1, but the kernel runs on cuda:0");
}

TEST(ValidateTest, WrongTensorCount) {
  AttentionCall call;
  TensorList list = call.list();
  list.pop_back();
  EXPECT_EQ(validate(attentionSignature(), list, hostOptions()).message(),
            "kernel 'attn_fwd' takes 4 tensors, got 3");
}

TEST(ValidateTest, NullTensor) {
  AttentionCall call;
  TensorList list = call.list();
  list[1] = nullptr;
  EXPECT_EQ(validate(attentionSignature(), list, hostOptions()).message(),
            "tensor 'k' (argument 1) is null");
}

TEST(ValidateTest, WrongRank) {
  AttentionCall call;
  call.replace(0, {2, 100, 64});
  EXPECT_EQ(validateHost(call).message(), "tensor 'q': rank is 3, expected 4");
}

TEST(ValidateTest, WrongDtypeCode) {
  AttentionCall call;
  call.replace(0, {2, 100, 8, 64}, kFloat32);
  EXPECT_EQ(validateHost(call).message(), "tensor 'q': dtype is float32, expected bfloat16");
}

TEST(ValidateTest, WrongDtypeBits) {
  AttentionCall call;
  call.replace(2, {2, 77, 4, 64}, DLDataType{kDLFloat, 16, 1});
  EXPECT_EQ(validateHost(call).message(), "tensor 'v': dtype is float16, expected bfloat16");
}

TEST(ValidateTest, WrongDtypeLanes) {
  AttentionCall call;
  call.replace(3, {2, 100, 8, 64}, DLDataType{kDLBfloat, 16, 2});
  EXPECT_EQ(validateHost(call).message(), "tensor 'o': dtype is bfloat16x2, expected bfloat16");
}

TEST(ValidateTest, WrongStaticSize) {
  AttentionCall call;
  call.replace(1, {2, 77, 4, 128});
  EXPECT_EQ(validateHost(call).message(), "tensor 'k': dim 3 is 128, expected 64");
}

TEST(ValidateTest, NegativeSize) {
  AttentionCall call;
  call.tensors[0]->shape[1] = -5;
  EXPECT_EQ(validateHost(call).message(), "tensor 'q': dim 1 (Sq) has negative size -5");
}

TEST(ValidateTest, SymbolMismatchAcrossTensors) {
  AttentionCall call;
  call.replace(2, {2, 77, 3, 64});
  EXPECT_EQ(validateHost(call).message(), "tensor 'v': dim 2 (Hkv) is 3 but 'k' has 4");
  AttentionCall batch;
  batch.replace(3, {1, 100, 8, 64});
  EXPECT_EQ(validateHost(batch).message(), "tensor 'o': dim 0 (B) is 1 but 'q' has 2");
}

TEST(ValidateTest, SymbolMismatchWithinOneTensor) {
  KernelSignature signature;
  signature.entry = "square";
  TensorParam a;
  a.name = "a";
  a.rank = 2;
  a.symbols = {"N", "N"};
  signature.params = {a};
  HostTensor square({5, 5}, kFloat32), notSquare({5, 6}, kFloat32);
  EXPECT_TRUE(validate(signature, {square.get()}, hostOptions()).ok());
  EXPECT_EQ(validate(signature, {notSquare.get()}, hostOptions()).message(),
            "tensor 'a': dim 1 (N) is 6 but dim 0 has 5");
}

TEST(ValidateTest, LastDimStrideMustBeOne) {
  AttentionCall call;
  call.replace(1, {2, 77, 4, 64}, kBFloat16, {77 * 4 * 128, 4 * 128, 128, 2});
  EXPECT_EQ(validateHost(call).message(),
            "tensor 'k': last dim has stride 2, expected 1 (contiguous)");
}

TEST(ValidateTest, StridedOuterDimsAreFine) {
  AttentionCall call;
  // k and v as views into a packed [B, Skv, 2, Hkv, 64] kv tensor.
  call.replace(1, {2, 77, 4, 64}, kBFloat16, {77 * 2 * 4 * 64, 2 * 4 * 64, 64, 1});
  Status status = validateHost(call);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(ValidateTest, NonContiguousLastDimAllowedWhenNotRequired) {
  KernelSignature signature = attentionSignature();
  signature.params[1].lastDimContiguous = false;
  AttentionCall call;
  call.replace(1, {2, 77, 4, 64}, kBFloat16, {77 * 4 * 128, 4 * 128, 128, 2});
  EXPECT_TRUE(validate(signature, call.list(), hostOptions()).ok());
}

TEST(ValidateTest, SizeOneLastDimMayHaveAnyStride) {
  KernelSignature signature;
  signature.entry = "column";
  TensorParam x;
  x.name = "x";
  x.rank = 2;
  signature.params = {x};
  HostTensor column({10, 1}, kFloat32, kDLCPU, {1, 10});
  EXPECT_TRUE(validate(signature, {column.get()}, hostOptions()).ok());
}

TEST(ValidateTest, NullDataWithElements) {
  AttentionCall call;
  call.tensors[3]->tensor.data = nullptr;
  EXPECT_EQ(validateHost(call).message(),
            "tensor 'o': data is null but the tensor has 102400 elements");
}

TEST(ValidateTest, NullDataIsFineForEmptyTensors) {
  AttentionCall call;
  call.replace(0, {2, 0, 8, 64});
  call.replace(3, {2, 0, 8, 64});
  call.tensors[0]->tensor.data = nullptr;
  call.tensors[3]->tensor.data = nullptr;
  Status status = validateHost(call);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(ValidateTest, MisalignedData) {
  AttentionCall call;
  call.tensors[2]->tensor.byte_offset = 1;
  Status status = validateHost(call);
  EXPECT_NE(status.message().find("tensor 'v': data address 0x"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("(with byte_offset 1) is not aligned to its 2-byte elements"),
            std::string::npos)
      << status.message();
  call.tensors[2]->tensor.byte_offset = 2;
  EXPECT_TRUE(validateHost(call).ok());
}

TEST(ValidateTest, BlockCountSymbols) {
  // A block map [B, H, ceil(Sq/64), ceil(Skv/128)] after q and k.
  KernelSignature signature = attentionSignature();
  TensorParam blocks;
  blocks.name = "input0";
  blocks.rank = 4;
  blocks.dtype = kInt32;
  blocks.symbols = {"B", "H", "Sq/64", "Skv/128"};
  signature.params.insert(signature.params.begin() + 3, blocks);
  AttentionCall call;
  call.tensors.insert(call.tensors.begin() + 3,
                      std::make_unique<HostTensor>(std::vector<int64_t>{2, 8, 2, 1}, kInt32));
  Status ok = validate(signature, call.list(), hostOptions());
  EXPECT_TRUE(ok.ok()) << ok.message();
  call.replace(3, {2, 8, 1, 1}, kInt32);
  EXPECT_EQ(validate(signature, call.list(), hostOptions()).message(),
            "tensor 'input0': dim 2 (Sq/64) is 1, expected ceil(100 / 64) = 2 from 'q'");
  call.replace(3, {2, 8, 2, 2}, kInt32);
  EXPECT_EQ(validate(signature, call.list(), hostOptions()).message(),
            "tensor 'input0': dim 3 (Skv/128) is 2, expected ceil(77 / 128) = 1 from 'k'");
  signature.params[3].symbols[2] = "Sq/0";
  EXPECT_EQ(validate(signature, call.list(), hostOptions()).message(),
            "invalid kernel signature for 'attn_fwd': tensor 'input0' has the symbol 'Sq/0' (a "
            "block count must be 'NAME/N' with N a positive integer)");
}

TEST(ValidateTest, InferParamShape) {
  // o's shape from q's (B, Sq, H) and its static value dim.
  KernelSignature signature = attentionSignature();
  std::vector<std::vector<int64_t>> shapes = {{2, 100, 8, 64}, {2, 77, 4, 64}, {}, {}};
  auto o = inferParamShape(signature, 3, shapes);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(*o, (std::vector<int64_t>{2, 100, 8, 64}));
  signature.params[3].symbols[1] = "Sq/64";
  auto blocks = inferParamShape(signature, 3, shapes);
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  EXPECT_EQ(*blocks, (std::vector<int64_t>{2, 2, 8, 64}));
  signature.params[3].symbols[1] = "T";
  EXPECT_EQ(inferParamShape(signature, 3, shapes).status().message(),
            "kernel 'attn_fwd': dim 1 of 'o' (T) is not bound by any other tensor");
}

TEST(ValidateTest, InvalidSignatureIsReported) {
  KernelSignature signature = attentionSignature();
  signature.grid[0].dim = 7;
  AttentionCall call;
  EXPECT_EQ(validateHost(call).ok(), true);
  EXPECT_EQ(validate(signature, call.list(), hostOptions()).message(),
            "invalid kernel signature for 'attn_fwd': grid[0] refers to dim 7 of 'q' (rank 4)");
  signature = attentionSignature();
  signature.params[0].sizes = {64};
  EXPECT_EQ(validate(signature, call.list(), hostOptions()).message(),
            "invalid kernel signature for 'attn_fwd': tensor 'q' has 1 sizes for rank 4");
  signature = attentionSignature();
  signature.threads = 2048;
  EXPECT_EQ(validate(signature, call.list(), hostOptions()).message(),
            "invalid kernel signature for 'attn_fwd': 2048 threads per block (must be 1..1024)");
}

TEST(ValidateTest, DtypeNames) {
  EXPECT_EQ(dtypeName(kFloat32), "float32");
  EXPECT_EQ(dtypeName(kBFloat16), "bfloat16");
  EXPECT_EQ(dtypeName(DLDataType{kDLUInt, 8, 1}), "uint8");
  EXPECT_EQ(dtypeName(DLDataType{kDLInt, 64, 1}), "int64");
  EXPECT_EQ(dtypeName(DLDataType{kDLFloat, 16, 4}), "float16x4");
}

TEST(GridTest, CeilDivisionAndConstants) {
  AttentionCall call;
  KernelSignature signature = attentionSignature();
  StatusOr<std::array<int64_t, 3>> grid = computeGrid(signature, call.list());
  ASSERT_TRUE(grid.ok()) << grid.message();
  EXPECT_EQ((*grid)[0], 2); // ceil(100 / 64)
  EXPECT_EQ((*grid)[1], 8);
  EXPECT_EQ((*grid)[2], 2);
  signature.grid[2] = GridDim{-1, 0, 1, 3};
  EXPECT_EQ((*computeGrid(signature, call.list()))[2], 3);
}

TEST(GridTest, ZeroExtentIsValid) {
  AttentionCall call;
  call.replace(0, {2, 0, 8, 64});
  call.replace(3, {2, 0, 8, 64});
  ASSERT_TRUE(validateHost(call).ok());
  StatusOr<std::array<int64_t, 3>> grid = computeGrid(attentionSignature(), call.list());
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ((*grid)[0], 0);
}

TEST(GridTest, ExtentBeyondLimit) {
  KernelSignature signature = attentionSignature();
  signature.grid[1] = GridDim{-1, 0, 1, 70000};
  AttentionCall call;
  EXPECT_EQ(computeGrid(signature, call.list()).message(),
            "kernel 'attn_fwd': grid.y is 70000, beyond CUDA's limit of 65535");
}

TEST(GridTest, PersistentLaunch) {
  KernelSignature signature = attentionSignature();
  // A plain kernel is launched on its grid.
  EXPECT_EQ(launchGrid(signature, {2, 8, 2}, 132), (std::array<int64_t, 3>{2, 8, 2}));
  signature.persistent = true;
  // Short rows: one block per multiprocessor, fewer when the grid has fewer blocks.
  EXPECT_EQ(launchGrid(signature, {kPersistentRowBlocks, 32, 4}, 132),
            (std::array<int64_t, 3>{132, 1, 1}));
  EXPECT_EQ(launchGrid(signature, {2, 8, 2}, 132), (std::array<int64_t, 3>{32, 1, 1}));
  // Longer rows: one block per tile, as a 1-D grid the kernel decodes.
  EXPECT_EQ(launchGrid(signature, {kPersistentRowBlocks + 1, 16, 1}, 132),
            (std::array<int64_t, 3>{(kPersistentRowBlocks + 1) * 16, 1, 1}));
  // An unknown multiprocessor count still launches a block.
  EXPECT_EQ(launchGrid(signature, {1, 4, 1}, 0), (std::array<int64_t, 3>{1, 1, 1}));
}

TEST(PackTest, TensorRefLayout) {
  KernelSignature signature;
  signature.entry = "pack";
  TensorParam a, b;
  a.name = "a";
  a.rank = 2;
  b.name = "b";
  b.rank = 1;
  b.lastDimContiguous = false;
  signature.params = {a, b};
  HostTensor compact({3, 5}, kFloat32), strided({4}, kFloat32, kDLCPU, {3});
  strided.tensor.byte_offset = 8;
  PackedArguments packed = packArguments(signature, {compact.get(), strided.get()});
  ASSERT_EQ(packed.words.size(), 2u);
  ASSERT_EQ(packed.pointers.size(), 2u);
  auto address = [](const void *p) { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p)); };
  EXPECT_EQ(packed.words[0], (std::vector<int64_t>{address(compact.tensor.data), 3, 5, 5, 1}));
  EXPECT_EQ(packed.words[1], (std::vector<int64_t>{address(strided.tensor.data) + 8, 4, 3}));
  EXPECT_EQ(packed.pointers[0], packed.words[0].data());
  EXPECT_EQ(packed.pointers[1], packed.words[1].data());
  // The layout the kernel sees: struct TensorRef<2> { void*; long long[2]; long long[2]; }.
  static_assert(sizeof(void *) == sizeof(int64_t) && sizeof(long long) == sizeof(int64_t));
}

} // namespace
