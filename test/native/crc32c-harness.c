/*
 * Checks src/native/crc32c.c's hardware CRC-32C, without Node, against a bitwise reference:
 * the published check value, then every length around the three-stream block sizes from
 * several start addresses and starting CRCs, then random ranges of a 100 KB buffer. On an x86-64
 * CPU with the folding path (AVX-512 and VPCLMULQDQ) every check runs twice, with and without
 * it. Built and run by test/native/crc32c.test.ts for this machine and, where a cross compiler
 * and QEMU are installed, for AArch64. Prints "ok <checks> (<paths>)" and exits 0; "no hardware
 * CRC" exits 2; a mismatch is printed and exits 1.
 */
#define SAMSA_CRC32C_CORE_ONLY 1
#include "../../src/native/crc32c.c"

#include <stdio.h>
#include <stdlib.h>

#ifndef SAMSA_CRC_HW
int main(void) {
  puts("no hardware CRC on this target");
  return 2;
}
#else
static uint32_t reference(uint32_t crc, const uint8_t *p, size_t len) {
  uint32_t c = ~crc;
  for (size_t i = 0; i < len; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
  }
  return ~c;
}

static uint32_t state = 0x9e3779b9u;
static uint32_t next(void) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

static uint8_t buf[100000];

/* Every check once on the path crc32c_hw takes now; adds to *checks; 0 when all agree. */
static int run_checks(long *checks) {
  if (crc32c_hw(0, (const uint8_t *)"123456789", 9) != 0xe3069283u) {
    puts("check value mismatch");
    return 1;
  }
  /* around the folding path's 256-byte start, 64- and 16-byte steps, and the three streams' blocks */
  const size_t lengths[] = {0,    1,    7,    8,    9,    15,   16,   255,  256,   257,   263,   271,   272,   319,   320,
                            335,  511,  512,  513,  767,  768,  769,  775,  1024,  8191,  8192,  16384, 16447, 24575,
                            24576, 24577, 25344, 25351, 50000, 99000};
  const uint32_t seeds[] = {0, 0xe3069283u, 0xffffffffu, 0x12345678u};
  for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
    for (size_t start = 0; start < 9; start++) {
      if (start + lengths[li] > sizeof buf) continue;
      for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
        uint32_t want = reference(seeds[si], buf + start, lengths[li]);
        uint32_t got = crc32c_hw(seeds[si], buf + start, lengths[li]);
        (*checks)++;
        if (got != want) {
          printf("mismatch: %zu bytes from %zu, crc %08x: got %08x, want %08x\n", lengths[li], start, seeds[si], got, want);
          return 1;
        }
      }
    }
  }
  for (int i = 0; i < 300; i++) {
    size_t a = next() % sizeof buf, b = next() % sizeof buf;
    size_t lo = a < b ? a : b, hi = a < b ? b : a;
    uint32_t seed = next();
    (*checks)++;
    if (crc32c_hw(seed, buf + lo, hi - lo) != reference(seed, buf + lo, hi - lo)) {
      printf("mismatch: [%zu, %zu), crc %08x\n", lo, hi, seed);
      return 1;
    }
  }
  return 0;
}

int main(void) {
  if (!crc32c_hw_available()) {
    puts("no hardware CRC on this CPU");
    return 2;
  }
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(next() >> 24);
  long checks = 0;
  const char *paths = "CRC instruction";
#ifdef SAMSA_CRC_WIDE
  if (wide_ok) {
    if (run_checks(&checks)) {
      puts("(on the folding path)");
      return 1;
    }
    wide_ok = 0;
    paths = "folding and CRC instruction";
  }
#endif
  if (run_checks(&checks)) return 1;
  printf("ok %ld (%s)\n", checks, paths);
  return 0;
}
#endif
