//===- TensorMapTest.cpp - TMA tensor-map parameters on host tensors -----------------------===//
//
// checkSignature on TensorMapParams, validate's TMA operand checks and encodeTensorMaps with a
// fake driver that records what cuTensorMapEncodeTiled is given. No GPU needed.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Runtime/KernelSignature.h"
#include "metaattn/Runtime/Launch.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <memory>

using namespace metaattn::rt;
using namespace metaattn::rt::test;

namespace {

constexpr DLDataType kFloat16 = {kDLFloat, 16, 1};

/// A 16-byte aligned address that the host-side checks accept; never dereferenced.
void *const kAlignedAddress = reinterpret_cast<void *>(uintptr_t(1) << 20);

/// q[B,Sq,H,D] and k[B,Skv,Hkv,D] (bf16, D dynamic), with a 64 x 64 map over k's dims 1 and 3.
KernelSignature tmaSignature() {
  KernelSignature signature;
  signature.entry = "tma_fwd";
  auto param = [](std::string name, std::vector<std::string> symbols) {
    TensorParam p;
    p.name = std::move(name);
    p.rank = 4;
    p.dtype = kBFloat16;
    p.symbols = std::move(symbols);
    return p;
  };
  signature.params = {param("q", {"B", "Sq", "H", "D"}), param("k", {"B", "Skv", "Hkv", "D"})};
  signature.tensorMaps = {TensorMapParam{/*tensor=*/1, /*rowDim=*/1, /*colDim=*/3,
                                         /*boxRows=*/64, /*boxCols=*/64}};
  return signature;
}

ValidateOptions hostOptions() {
  ValidateOptions options;
  options.allowHostTensors = true;
  return options;
}

/// q and k for `tmaSignature`, at aligned (fake) addresses; k can be replaced.
struct TmaCall {
  std::unique_ptr<HostTensor> q, k;

  TmaCall() : TmaCall({2, 300, 4, 128}) {}
  explicit TmaCall(std::vector<int64_t> kShape, std::vector<int64_t> kStrides = {},
                   DLDataType dtype = kBFloat16) {
    std::vector<int64_t> qShape = kShape;
    qShape[1] = 5;
    q = std::make_unique<HostTensor>(qShape, dtype);
    k = std::make_unique<HostTensor>(std::move(kShape), dtype, kDLCPU, std::move(kStrides));
    q->tensor.data = kAlignedAddress;
    k->tensor.data = kAlignedAddress;
  }
  TensorList list() const { return {q->get(), k->get()}; }
};

Status validateHost(const TmaCall &call, const KernelSignature &signature = tmaSignature()) {
  return validate(signature, call.list(), hostOptions());
}

/// Asserts that `status` failed with a message containing each of `parts`.
void expectErrorWith(const Status &status, std::vector<std::string> parts) {
  ASSERT_FALSE(status.ok());
  for (const std::string &part : parts)
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "missing '" << part << "' in: " << status.message();
}

//===----------------------------------------------------------------------===//
// checkSignature
//===----------------------------------------------------------------------===//

std::string signatureError(TensorMapParam map, DLDataType dtype = kBFloat16, int rank = 4) {
  KernelSignature signature = tmaSignature();
  signature.tensorMaps = {map};
  signature.params[1].dtype = dtype;
  signature.params[1].rank = rank;
  signature.params[1].symbols.resize(rank);
  return checkSignature(signature).message();
}

TEST(TensorMapSignatureTest, AcceptsAGoodMap) {
  KernelSignature signature = tmaSignature();
  signature.tensorMaps.push_back({0, 1, 3, 1, 64});
  signature.tensorMaps.push_back({1, 0, 3, 256, 64});
  Status status = checkSignature(signature);
  EXPECT_TRUE(status.ok()) << status.message();
  signature.params[1].dtype = kFloat16;
  signature.params[0].dtype = kFloat16;
  status = checkSignature(signature);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(TensorMapSignatureTest, RejectsEachBadField) {
  const std::string prefix = "invalid kernel signature for 'tma_fwd': ";
  EXPECT_EQ(signatureError({2, 1, 3, 64, 64}), prefix + "tensor map #0 refers to tensor #2 of 2");
  EXPECT_EQ(signatureError({-1, 1, 3, 64, 64}), prefix + "tensor map #0 refers to tensor #-1 of 2");
  EXPECT_EQ(signatureError({1, 4, 3, 64, 64}),
            prefix + "tensor map #0 of 'k': rowDim is 4 (rank 4)");
  EXPECT_EQ(signatureError({1, 1, -1, 64, 64}),
            prefix + "tensor map #0 of 'k': colDim is -1 (rank 4)");
  EXPECT_EQ(signatureError({1, 3, 3, 64, 64}),
            prefix + "tensor map #0 of 'k': rowDim and colDim are both 3");
  EXPECT_EQ(signatureError({1, 3, 2, 64, 64}),
            prefix + "tensor map #0 of 'k': colDim is 2, expected the last dim 3");
  EXPECT_EQ(signatureError({1, 1, 3, 0, 64}),
            prefix + "tensor map #0 of 'k': boxRows is 0 (must be 1..256)");
  EXPECT_EQ(signatureError({1, 1, 3, 257, 64}),
            prefix + "tensor map #0 of 'k': boxRows is 257 (must be 1..256)");
  EXPECT_EQ(signatureError({1, 1, 3, 64, 512}),
            prefix + "tensor map #0 of 'k': boxCols is 512 (must be 1..256)");
  EXPECT_EQ(signatureError({1, 1, 3, 64, 32}),
            prefix + "tensor map #0 of 'k': boxCols 32 spans 64 bytes, expected 128 (the "
                     "swizzle span)");
  EXPECT_EQ(signatureError({1, 1, 3, 64, 32}, kFloat32),
            prefix + "tensor map #0 of 'k': the tensor is float32, expected bfloat16 or float16");
  EXPECT_EQ(signatureError({1, 1, 3, 64, 64}, DLDataType{kDLBfloat, 16, 2}),
            prefix + "tensor map #0 of 'k': the tensor is bfloat16x2, expected bfloat16 or "
                     "float16");
  EXPECT_EQ(signatureError({1, 1, 5, 64, 64}, kBFloat16, 6),
            prefix + "tensor map #0 of 'k': the tensor has rank 6 (TMA needs 2..5)");
  EXPECT_EQ(signatureError({1, 0, 0, 64, 64}, kBFloat16, 1),
            prefix + "tensor map #0 of 'k': the tensor has rank 1 (TMA needs 2..5)");
}

TEST(TensorMapSignatureTest, ValidateReportsABadMap) {
  KernelSignature signature = tmaSignature();
  signature.tensorMaps[0].boxCols = 128;
  TmaCall call;
  EXPECT_EQ(validateHost(call, signature).message(),
            "invalid kernel signature for 'tma_fwd': tensor map #0 of 'k': boxCols 128 spans 256 "
            "bytes, expected 128 (the swizzle span)");
}

//===----------------------------------------------------------------------===//
// validate: tensors a TMA map can describe
//===----------------------------------------------------------------------===//

TEST(TensorMapOperandTest, AcceptsAContiguousTensor) {
  TmaCall call({2, 300, 4, 128});
  Status status = validateHost(call);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(TensorMapOperandTest, RejectsAMisalignedAddress) {
  TmaCall call;
  call.k->tensor.byte_offset = 2; // element-aligned, so only the TMA check fails
  Status status = validateHost(call);
  EXPECT_EQ(status.message(), "tensor 'k': TMA needs a 16-byte aligned data address, got 0x100002 "
                              "(with byte_offset 2); pass a contiguous tensor with aligned "
                              "storage");
  // q has no map: the same offset is fine there.
  call.k->tensor.byte_offset = 32;
  call.q->tensor.byte_offset = 2;
  status = validateHost(call);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(TensorMapOperandTest, RejectsARowStrideThatIsNotAMultipleOf16Bytes) {
  // Contiguous [1, 7, 1, 100] bf16: rows are 200 bytes apart.
  TmaCall call({1, 7, 1, 100});
  expectErrorWith(validateHost(call),
                  {"tensor 'k': TMA needs every stride but the last dim's to be a multiple of "
                   "16 bytes, but dim 1 (Skv) has stride 100 (200 bytes)",
                   "pad the last dim to a multiple of 8 elements"});
  // The same rows padded to 104 elements (208 bytes) are fine.
  TmaCall padded({1, 7, 1, 100}, {7 * 104, 104, 104, 1});
  Status status = validateHost(padded);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(TensorMapOperandTest, IgnoresTheStridesOfSizeOneDims) {
  TmaCall call({1, 64, 1, 64}, {5, 64, 3, 1});
  Status status = validateHost(call);
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(TensorMapOperandTest, RejectsANonContiguousLastDim) {
  KernelSignature signature = tmaSignature();
  signature.params[1].lastDimContiguous = false;
  TmaCall call({2, 8, 4, 64}, {8 * 4 * 128, 4 * 128, 128, 2});
  EXPECT_EQ(validateHost(call, signature).message(),
            "tensor 'k': TMA needs a contiguous last dim, got stride 2; pass a contiguous tensor");
}

TEST(TensorMapOperandTest, RejectsNegativeAndHugeStridesAndSizes) {
  TmaCall negative({2, 8, 4, 64}, {8 * 4 * 64, -4 * 64, 64, 1});
  EXPECT_EQ(validateHost(negative).message(),
            "tensor 'k': dim 1 (Skv) has negative stride -256, which TMA cannot describe; pass a "
            "contiguous tensor");
  TmaCall huge({2, 8, 4, 64});
  huge.k->strides = {int64_t(1) << 39, 4 * 64, 64, 1};
  huge.k->tensor.strides = huge.k->strides.data();
  EXPECT_EQ(validateHost(huge).message(),
            "tensor 'k': dim 0 (B) has stride 549755813888 (2-byte elements), beyond TMA's limit "
            "of 2^40 bytes");
  TmaCall big({2, 8, 4, 64});
  big.k->shape[1] = (int64_t(1) << 32) + 1; // never allocated: validate reads no data
  big.q->shape[1] = 1;
  expectErrorWith(validateHost(big),
                  {"tensor 'k': dim 1 (Skv) is 4294967297, beyond TMA's limit of 2^32"});
}

TEST(TensorMapOperandTest, EmptyTensorsAreExempt) {
  TmaCall call({2, 0, 4, 64});
  call.k->tensor.data = nullptr;
  Status status = validateHost(call);
  EXPECT_TRUE(status.ok()) << status.message();
}

//===----------------------------------------------------------------------===//
// encodeTensorMaps with a recording driver
//===----------------------------------------------------------------------===//

/// What the fake cuTensorMapEncodeTiled was last given.
struct EncodeCall {
  int calls = 0;
  CUresult result = CUDA_SUCCESS;
  CUtensorMapDataType dataType{};
  cuuint32_t rank = 0;
  void *address = nullptr;
  std::vector<cuuint64_t> globalDim, globalStrides;
  std::vector<cuuint32_t> boxDim, elementStrides;
  CUtensorMapInterleave interleave{};
  CUtensorMapSwizzle swizzle{};
  CUtensorMapL2promotion l2Promotion{};
  CUtensorMapFloatOOBfill oobFill{};
};
EncodeCall lastEncode;

CUresult fakeEncodeTiled(CUtensorMap *map, CUtensorMapDataType dataType, cuuint32_t rank,
                         void *address, const cuuint64_t *globalDim,
                         const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
                         const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                         CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                         CUtensorMapFloatOOBfill oobFill) {
  EncodeCall &call = lastEncode;
  ++call.calls;
  call.dataType = dataType;
  call.rank = rank;
  call.address = address;
  call.globalDim.assign(globalDim, globalDim + rank);
  call.globalStrides.assign(globalStrides, globalStrides + rank - 1);
  call.boxDim.assign(boxDim, boxDim + rank);
  call.elementStrides.assign(elementStrides, elementStrides + rank);
  call.interleave = interleave;
  call.swizzle = swizzle;
  call.l2Promotion = l2Promotion;
  call.oobFill = oobFill;
  map->opaque[0] = 0x7e57; // marks the map as written
  return call.result;
}

CudaDriver fakeDriver() {
  lastEncode = EncodeCall();
  CudaDriver driver;
  driver.cuTensorMapEncodeTiled = &fakeEncodeTiled;
  return driver;
}

TEST(EncodeTensorMapsTest, BuildsTheMapInnermostFirst) {
  CudaDriver driver = fakeDriver();
  KernelSignature signature = tmaSignature();
  signature.tensorMaps.push_back({0, 1, 3, 128, 64});
  TmaCall call({2, 300, 4, 128});
  call.k->tensor.byte_offset = 64;
  ASSERT_TRUE(validateHost(call, signature).ok());
  PackedArguments packed = packArguments(signature, call.list());
  Status status = encodeTensorMaps(driver, signature, call.list(), packed);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(lastEncode.calls, 2);

  ASSERT_EQ(packed.maps.size(), 2u);
  ASSERT_EQ(packed.pointers.size(), 4u);
  EXPECT_EQ(packed.pointers[0], packed.words[0].data());
  EXPECT_EQ(packed.pointers[1], packed.words[1].data());
  EXPECT_EQ(packed.pointers[2], &packed.maps[0]);
  EXPECT_EQ(packed.pointers[3], &packed.maps[1]);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(packed.maps.data()) % 64, 0u);
  static_assert(sizeof(CUtensorMap) == 128);
  EXPECT_EQ(packed.maps[0].opaque[0], 0x7e57u);

  // The second map (q [2, 5, 4, 128], box 128 x 64) was encoded last.
  EXPECT_EQ(lastEncode.address, kAlignedAddress);
  EXPECT_EQ(lastEncode.boxDim, (std::vector<cuuint32_t>{64, 1, 128, 1}));
  EXPECT_EQ(lastEncode.globalDim, (std::vector<cuuint64_t>{128, 4, 5, 2}));

  // k: the first map. Re-encode it alone to inspect its arguments.
  signature.tensorMaps.pop_back();
  ASSERT_TRUE(encodeTensorMaps(driver, signature, call.list(), packed).ok());
  ASSERT_EQ(packed.pointers.size(), 3u);
  EXPECT_EQ(lastEncode.dataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(lastEncode.rank, 4u);
  EXPECT_EQ(lastEncode.address, static_cast<char *>(kAlignedAddress) + 64);
  EXPECT_EQ(lastEncode.globalDim, (std::vector<cuuint64_t>{128, 4, 300, 2}));
  EXPECT_EQ(lastEncode.globalStrides, (std::vector<cuuint64_t>{256, 1024, 300 * 1024}));
  EXPECT_EQ(lastEncode.boxDim, (std::vector<cuuint32_t>{64, 1, 64, 1}));
  EXPECT_EQ(lastEncode.elementStrides, (std::vector<cuuint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(lastEncode.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(lastEncode.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(lastEncode.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(lastEncode.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);

  // Moving keeps the pointers valid.
  PackedArguments moved = std::move(packed);
  EXPECT_EQ(moved.pointers[2], &moved.maps[0]);
}

TEST(EncodeTensorMapsTest, Float16AndStridedViews) {
  CudaDriver driver = fakeDriver();
  KernelSignature signature = tmaSignature();
  signature.params[0].dtype = kFloat16;
  signature.params[1].dtype = kFloat16;
  // k as a view into a packed [B, Skv, 2, Hkv, 64] kv tensor.
  TmaCall call({2, 77, 4, 64}, {77 * 2 * 4 * 64, 2 * 4 * 64, 64, 1}, kFloat16);
  ASSERT_TRUE(validateHost(call, signature).ok());
  PackedArguments packed = packArguments(signature, call.list());
  ASSERT_TRUE(encodeTensorMaps(driver, signature, call.list(), packed).ok());
  EXPECT_EQ(lastEncode.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(lastEncode.globalDim, (std::vector<cuuint64_t>{64, 4, 77, 2}));
  EXPECT_EQ(lastEncode.globalStrides, (std::vector<cuuint64_t>{128, 1024, 77 * 1024}));
}

TEST(EncodeTensorMapsTest, SizeOneDimsGetValidStrides) {
  CudaDriver driver = fakeDriver();
  KernelSignature signature = tmaSignature();
  TmaCall call({1, 7, 1, 64}, {5, 64, 3, 1});
  ASSERT_TRUE(validateHost(call, signature).ok());
  PackedArguments packed = packArguments(signature, call.list());
  ASSERT_TRUE(encodeTensorMaps(driver, signature, call.list(), packed).ok());
  // Dim 2 spans one 128-byte row; dim 0 spans the 7 rows of dim 1.
  EXPECT_EQ(lastEncode.globalStrides, (std::vector<cuuint64_t>{128, 128, 7 * 128}));
}

TEST(EncodeTensorMapsTest, EmptyTensorGetsAZeroMap) {
  CudaDriver driver = fakeDriver();
  KernelSignature signature = tmaSignature();
  TmaCall call({2, 0, 4, 64});
  call.k->tensor.data = nullptr;
  PackedArguments packed = packArguments(signature, call.list());
  ASSERT_TRUE(encodeTensorMaps(driver, signature, call.list(), packed).ok());
  EXPECT_EQ(lastEncode.calls, 0);
  ASSERT_EQ(packed.pointers.size(), 3u);
  EXPECT_EQ(packed.pointers[2], &packed.maps[0]);
  for (cuuint64_t word : packed.maps[0].opaque)
    EXPECT_EQ(word, 0u);
}

TEST(EncodeTensorMapsTest, DriverErrorNamesTheTensorAndTheBox) {
  CudaDriver driver = fakeDriver();
  lastEncode.result = CUDA_ERROR_INVALID_VALUE;
  KernelSignature signature = tmaSignature();
  TmaCall call({2, 300, 4, 128});
  PackedArguments packed = packArguments(signature, call.list());
  EXPECT_EQ(encodeTensorMaps(driver, signature, call.list(), packed).message(),
            "tensor 'k' [2, 300, 4, 128] bfloat16: encoding TMA map #0 (box 64 x 64 over dims 1 "
            "and 3): CUresult 1 (no description)");
}

TEST(EncodeTensorMapsTest, KernelsWithoutMapsNeedNoDriverEntryPoint) {
  CudaDriver none; // every entry point null
  KernelSignature signature = tmaSignature();
  signature.tensorMaps.clear();
  TmaCall call;
  PackedArguments packed = packArguments(signature, call.list());
  ASSERT_TRUE(encodeTensorMaps(none, signature, call.list(), packed).ok());
  EXPECT_EQ(packed.pointers.size(), 2u);
  EXPECT_TRUE(packed.maps.empty());
  signature = tmaSignature();
  EXPECT_EQ(encodeTensorMaps(none, signature, call.list(), packed).message(),
            "kernel 'tma_fwd' takes TMA descriptors, but the CUDA driver does not provide "
            "cuTensorMapEncodeTiled");
}

} // namespace
