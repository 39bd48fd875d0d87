/*
 * samsa's optional native addon: a hardware CRC-32C (Castagnoli), the checksum of every Kafka
 * RecordBatch v2, which the producer computes and the broker, its followers and the consumer
 * verify. Built at install time by scripts/build-native.mjs; src/protocol/crc32c.ts falls back
 * to @node-rs/crc32 or to JavaScript tables when it is missing, and checks it against the
 * tables before using it.
 *
 * x86-64 with SSE4.2 (cpuid) and AArch64 with the CRC32 extension (Linux: the HWCAP bit;
 * macOS: hw.optional.armv8_crc32), built by GCC or clang, not on Windows; elsewhere, or on a
 * CPU without the instructions, the module exports nothing. Both instruction sets have a
 * CRC-32C step with a latency of about three cycles and a throughput of one per cycle, so a
 * long range is split into three interleaved streams, each with its own running CRC, combined
 * at the end of each block by "shifting" the first two over the bytes that follow them. A
 * shift over n zero bytes is linear in the CRC register, so it is tabulated per block size as
 * four 256-entry tables (one per register byte).
 *
 * On x86-64 CPUs that also have AVX-512 and VPCLMULQDQ, ranges of 256 bytes or more are folded
 * instead: sixteen 16-byte lanes are multiplied (carry-less) by constants that stand for x to
 * the power of the distance they move, 256 bytes a step, and the one lane left at the end goes
 * through the CRC instruction with the range's last bytes. About twice the three streams' rate
 * on a 16 KiB batch here (`npm run bench:crc32c`).
 *
 * Exports crc32cUpdate(bytes: Uint8Array, crc: number, start: number, end: number): number,
 * the CRC of bytes[start, end) continuing from `crc` (0 to start), as an unsigned 32-bit number.
 * Compiled with SAMSA_CRC32C_CORE_ONLY it is only the C functions (for a test harness).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define SAMSA_CRC_HW 1
#include <nmmintrin.h>
#define HW_TARGET __attribute__((target("sse4.2")))
#define CRC_STEP64(c, v) ((uint32_t)_mm_crc32_u64((c), (v)))
#define CRC_STEP8(c, b) _mm_crc32_u8((c), (b))
/* The folding path needs a compiler that knows AVX-512 and VPCLMULQDQ (GCC 8, clang 10);
 * SAMSA_CRC32C_NO_WIDE leaves it out (the test harness builds both ways). */
#if !defined(SAMSA_CRC32C_NO_WIDE) && ((defined(__clang__) && __clang_major__ >= 10) || (!defined(__clang__) && __GNUC__ >= 8))
#define SAMSA_CRC_WIDE 1
#endif
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define SAMSA_CRC_HW 1
#include <arm_acle.h>
#if defined(__clang__)
#define HW_TARGET __attribute__((target("crc")))
#else
#define HW_TARGET __attribute__((target("+crc")))
#endif
#define CRC_STEP64(c, v) __crc32cd((c), (v))
#define CRC_STEP8(c, b) __crc32cb((c), (b))
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#endif
#endif

#ifdef SAMSA_CRC_HW
#include <pthread.h>

#define POLY 0x82f63b78u
/* Three streams of LONG_BLOCK bytes each while at least three remain, then of SHORT_BLOCK. */
#define LONG_BLOCK 8192
#define SHORT_BLOCK 256

static uint32_t long_shift[4][256];
static uint32_t short_shift[4][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* t[k][b]: the register state that byte b at position k of the register becomes after `zeros`
 * zero bytes; the state after n zeros of any register is the XOR over its four bytes. */
static void build_shift(uint32_t t[4][256], size_t zeros) {
  uint32_t byte_step[256];
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
    byte_step[n] = c;
  }
  uint32_t bit_image[32];
  for (int i = 0; i < 32; i++) {
    uint32_t r = 1u << i;
    for (size_t z = 0; z < zeros; z++) r = byte_step[r & 0xff] ^ (r >> 8);
    bit_image[i] = r;
  }
  for (int k = 0; k < 4; k++) {
    for (uint32_t b = 0; b < 256; b++) {
      uint32_t v = 0;
      for (int j = 0; j < 8; j++)
        if (b & (1u << j)) v ^= bit_image[8 * k + j];
      t[k][b] = v;
    }
  }
}

#ifdef SAMSA_CRC_WIDE
#include <cpuid.h>
#include <immintrin.h>
#define WIDE_TARGET __attribute__((target("sse4.2,pclmul,avx512f,avx512vl,vpclmulqdq")))
/* Ranges this long or longer take the folding path where the CPU has it. */
#define WIDE_MIN 256
/*
 * Folding constants for a distance of D bytes: {rev64(x^(8D+63) mod P), rev64(x^(8D-1) mod P)}.
 * A 16-byte lane X, as a reflected polynomial LO * x^64 + HI, contributes to the CRC what
 * X * x^(8D) does D bytes further on, and carry-less products of the reflected halves with
 * these constants give that value (each product carries one factor of x, hence the -1).
 */
static uint64_t fold256[2], fold64[2], fold16[2];
/* Set once the constants are built on a CPU with AVX-512 and VPCLMULQDQ; a harness may clear
 * it to check the narrow path on the same CPU. */
static int wide_ok;

/* x^e mod P, P the normal (unreflected) Castagnoli polynomial, bit i the coefficient of x^i. */
static uint32_t xpow_mod(size_t e) {
  uint32_t r = 1;
  for (size_t i = 0; i < e; i++) r = (r & 0x80000000u) ? (r << 1) ^ 0x1edc6f41u : r << 1;
  return r;
}

static uint64_t rev64(uint64_t v) {
  uint64_t r = 0;
  for (int i = 0; i < 64; i++, v >>= 1) r = (r << 1) | (v & 1);
  return r;
}

static void fold_constants(uint64_t k[2], size_t bytes) {
  k[0] = rev64(xpow_mod(8 * bytes + 63));
  k[1] = rev64(xpow_mod(8 * bytes - 1));
}

/* PCLMULQDQ, AVX-512 F and VL and VPCLMULQDQ in cpuid, and the OS saving the vector state. */
static int wide_available(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  if (!(c & (1u << 1)) || !(c & (1u << 27))) return 0; /* PCLMULQDQ, OSXSAVE */
  unsigned xlo, xhi;
  __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
  if ((xlo & 0xe6) != 0xe6) return 0; /* XMM, YMM, opmask, upper ZMM halves, ZMM16-31 */
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b & (1u << 16)) && (b & (1u << 31)) && (c & (1u << 10)); /* AVX512F, AVX512VL, VPCLMULQDQ */
}

#endif

static void build_tables(void) {
  build_shift(long_shift, LONG_BLOCK);
  build_shift(short_shift, SHORT_BLOCK);
#ifdef SAMSA_CRC_WIDE
  if (wide_available()) {
    fold_constants(fold256, 256);
    fold_constants(fold64, 64);
    fold_constants(fold16, 16);
    wide_ok = 1;
  }
#endif
}

/* Whether this CPU has the instructions (the tables are built once, on the first yes). */
static int crc32c_hw_available(void) {
  int yes = 0;
#if defined(__x86_64__)
  __builtin_cpu_init();
  yes = __builtin_cpu_supports("sse4.2");
#elif defined(__linux__)
  yes = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#elif defined(__APPLE__)
  int v = 0;
  size_t len = sizeof v;
  yes = sysctlbyname("hw.optional.armv8_crc32", &v, &len, NULL, 0) == 0 && v != 0;
#endif
  if (yes) pthread_once(&tables_once, build_tables);
  return yes;
}

static inline uint32_t shift(uint32_t t[4][256], uint32_t c) {
  return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}

static inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8); /* little-endian on both targets, as the instructions expect */
  return v;
}

/* The register after p[0, len) one instruction at a time: 8 bytes a step, then single bytes. */
HW_TARGET static inline uint32_t crc_steps(uint32_t c, const uint8_t *p, size_t len) {
  while (len >= 8) {
    c = CRC_STEP64(c, load64(p));
    p += 8;
    len -= 8;
  }
  while (len > 0) {
    c = CRC_STEP8(c, *p++);
    len--;
  }
  return c;
}

/* Three streams of `block` bytes from p: returns the register after all 3 * block bytes. */
HW_TARGET static inline uint32_t three_streams(uint32_t c0, const uint8_t *p, size_t block, uint32_t t[4][256]) {
  uint32_t c1 = 0, c2 = 0;
  const uint8_t *end = p + block;
  do {
    c0 = CRC_STEP64(c0, load64(p));
    c1 = CRC_STEP64(c1, load64(p + block));
    c2 = CRC_STEP64(c2, load64(p + 2 * block));
    p += 8;
  } while (p < end);
  c0 = shift(t, c0) ^ c1;
  return shift(t, c0) ^ c2;
}

#ifdef SAMSA_CRC_WIDE
WIDE_TARGET static inline __m512i fold_512(__m512i acc, __m512i k, __m512i data) {
  __m512i lo = _mm512_clmulepi64_epi128(acc, k, 0x00);
  __m512i hi = _mm512_clmulepi64_epi128(acc, k, 0x11);
  return _mm512_ternarylogic_epi64(lo, hi, data, 0x96); /* lo ^ hi ^ data */
}

WIDE_TARGET static inline __m128i fold_128(__m128i acc, __m128i k, __m128i data) {
  __m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
  __m128i hi = _mm_clmulepi64_si128(acc, k, 0x11);
  return _mm_ternarylogic_epi64(lo, hi, data, 0x96);
}

/*
 * The CRC-32C of p[0, len), len >= WIDE_MIN, continuing from `crc`: four 64-byte accumulators
 * (16 lanes of 16 bytes) fold 256 bytes a step, then fold into one lane, whose 16 bytes and the
 * range's last few go through the CRC instruction. The starting register is XORed into the
 * first four bytes, which is what the instruction does with it.
 */
WIDE_TARGET static uint32_t crc32c_wide(uint32_t crc, const uint8_t *p, size_t len) {
  const __m512i k256 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold256[1], (long long)fold256[0]));
  const __m512i k64 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold64[1], (long long)fold64[0]));
  const __m128i k16 = _mm_set_epi64x((long long)fold16[1], (long long)fold16[0]);
  __m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_inserti32x4(_mm512_setzero_si512(), _mm_cvtsi32_si128((int)~crc), 0));
  __m512i x1 = _mm512_loadu_si512(p + 64);
  __m512i x2 = _mm512_loadu_si512(p + 128);
  __m512i x3 = _mm512_loadu_si512(p + 192);
  p += 256;
  len -= 256;
  while (len >= 256) {
    x0 = fold_512(x0, k256, _mm512_loadu_si512(p));
    x1 = fold_512(x1, k256, _mm512_loadu_si512(p + 64));
    x2 = fold_512(x2, k256, _mm512_loadu_si512(p + 128));
    x3 = fold_512(x3, k256, _mm512_loadu_si512(p + 192));
    p += 256;
    len -= 256;
  }
  x1 = fold_512(x0, k64, x1);
  x2 = fold_512(x1, k64, x2);
  x3 = fold_512(x2, k64, x3);
  while (len >= 64) {
    x3 = fold_512(x3, k64, _mm512_loadu_si512(p));
    p += 64;
    len -= 64;
  }
  __m128i a = _mm512_extracti32x4_epi32(x3, 0);
  a = fold_128(a, k16, _mm512_extracti32x4_epi32(x3, 1));
  a = fold_128(a, k16, _mm512_extracti32x4_epi32(x3, 2));
  a = fold_128(a, k16, _mm512_extracti32x4_epi32(x3, 3));
  while (len >= 16) {
    a = fold_128(a, k16, _mm_loadu_si128((const __m128i *)p));
    p += 16;
    len -= 16;
  }
  uint32_t c = (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(a));
  c = (uint32_t)_mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(a, 1));
  return ~crc_steps(c, p, len);
}
#endif

/* The CRC-32C of p[0, len) continuing from `crc`; only where crc32c_hw_available() said yes. */
HW_TARGET static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len) {
#ifdef SAMSA_CRC_WIDE
  if (wide_ok && len >= WIDE_MIN) return crc32c_wide(crc, p, len);
#endif
  uint32_t c = ~crc;
  while (len > 0 && ((uintptr_t)p & 7) != 0) {
    c = CRC_STEP8(c, *p++);
    len--;
  }
  while (len >= 3 * LONG_BLOCK) {
    c = three_streams(c, p, LONG_BLOCK, long_shift);
    p += 3 * LONG_BLOCK;
    len -= 3 * LONG_BLOCK;
  }
  while (len >= 3 * SHORT_BLOCK) {
    c = three_streams(c, p, SHORT_BLOCK, short_shift);
    p += 3 * SHORT_BLOCK;
    len -= 3 * SHORT_BLOCK;
  }
  return ~crc_steps(c, p, len);
}
#endif /* SAMSA_CRC_HW */

#ifndef SAMSA_CRC32C_CORE_ONLY
#include <node_api.h>

#ifdef SAMSA_CRC_HW
static napi_value crc32c_update(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  napi_typedarray_type type;
  size_t length;
  void *data;
  napi_value arraybuffer;
  size_t byte_offset;
  if (argc < 4 || napi_get_typedarray_info(env, argv[0], &type, &length, &data, &arraybuffer, &byte_offset) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "crc32cUpdate(bytes, crc, start, end): bytes must be a Uint8Array");
    return NULL;
  }
  uint32_t crc;
  int64_t start, end;
  if (napi_get_value_uint32(env, argv[1], &crc) != napi_ok || napi_get_value_int64(env, argv[2], &start) != napi_ok ||
      napi_get_value_int64(env, argv[3], &end) != napi_ok) {
    napi_throw_type_error(env, NULL, "crc32cUpdate(bytes, crc, start, end): crc, start and end must be numbers");
    return NULL;
  }
  if (start < 0 || end > (int64_t)length || start > end) {
    napi_throw_range_error(env, NULL, "crc32cUpdate: range is outside the buffer");
    return NULL;
  }
  /* data already points at the view's first byte (the byte offset applied) */
  const uint8_t *bytes = (const uint8_t *)data;
  napi_value out;
  if (napi_create_uint32(env, crc32c_hw(crc, bytes + start, (size_t)(end - start)), &out) != napi_ok) return NULL;
  return out;
}
#endif

NAPI_MODULE_INIT() {
#ifdef SAMSA_CRC_HW
  if (crc32c_hw_available()) {
    napi_value fn;
    if (napi_create_function(env, "crc32cUpdate", NAPI_AUTO_LENGTH, crc32c_update, NULL, &fn) == napi_ok)
      napi_set_named_property(env, exports, "crc32cUpdate", fn);
  }
#endif
  return exports;
}
#endif /* SAMSA_CRC32C_CORE_ONLY */
