#include "runtime/sha256_blocks.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define LLM_SHA256_X86 1
#elif defined(__aarch64__) && defined(__linux__)
#include <arm_neon.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>
#define LLM_SHA256_ARM 1
#endif

namespace llm {
namespace {

// FIPS 180-4 round constants: the first 32 bits of the fractional parts of
// the cube roots of the first 64 primes.
alignas(16) constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t Rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

#if LLM_SHA256_X86
// The SHA-NI round instruction works on the state split as {A,B,E,F} and
// {C,D,G,H}, and does two rounds per call; the message instructions compute
// the schedule four words at a time.
__attribute__((target("sha,sse4.1,ssse3"))) void BlocksShaNi(
    uint32_t state[8], const uint8_t* data, size_t blocks) {
  const __m128i big_endian =
      _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));
  const __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];
    for (int i = 0; i < 4; ++i) {
      w[i] = _mm_shuffle_epi8(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * i)),
          big_endian);
    }
    for (int group = 0; group < 16; ++group) {
      const __m128i words = w[group % 4];
      const __m128i k = _mm_add_epi32(
          words,
          _mm_load_si128(reinterpret_cast<const __m128i*>(kRound + 4 * group)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k, 0x0E));
      if (group < 12) {
        // W[t..t+3] for the group four ahead replaces this group's words.
        __m128i next = _mm_sha256msg1_epu32(words, w[(group + 1) % 4]);
        next = _mm_add_epi32(
            next, _mm_alignr_epi8(w[(group + 3) % 4], w[(group + 2) % 4], 4));
        w[group % 4] = _mm_sha256msg2_epu32(next, w[(group + 3) % 4]);
      }
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), hgfe);
}

bool HasShaNi() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool ssse3 = (c & (1u << 9)) != 0, sse41 = (c & (1u << 19)) != 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return ssse3 && sse41 && (b & (1u << 29)) != 0;
}
#endif

#if LLM_SHA256_ARM
#if defined(__clang__)
#define LLM_SHA2_TARGET __attribute__((target("sha2")))
#else
#define LLM_SHA2_TARGET __attribute__((target("+crypto")))
#endif
// ARMv8's SHA256H/SHA256H2 do four rounds on {A,B,C,D} and {E,F,G,H};
// SHA256SU0/SU1 compute the schedule four words at a time.
LLM_SHA2_TARGET void BlocksArmv8(uint32_t state[8], const uint8_t* data,
                                 size_t blocks) {
  uint32x4_t abcd = vld1q_u32(state);
  uint32x4_t efgh = vld1q_u32(state + 4);
  for (; blocks > 0; --blocks, data += 64) {
    const uint32x4_t abcd_in = abcd, efgh_in = efgh;
    uint32x4_t w[4];
    for (int i = 0; i < 4; ++i) {
      w[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(data + 16 * i)));
    }
    for (int group = 0; group < 16; ++group) {
      const uint32x4_t k =
          vaddq_u32(w[group % 4], vld1q_u32(kRound + 4 * group));
      if (group < 12) {
        w[group % 4] =
            vsha256su1q_u32(vsha256su0q_u32(w[group % 4], w[(group + 1) % 4]),
                            w[(group + 2) % 4], w[(group + 3) % 4]);
      }
      const uint32x4_t abcd_before = abcd;
      abcd = vsha256hq_u32(abcd, efgh, k);
      efgh = vsha256h2q_u32(efgh, abcd_before, k);
    }
    abcd = vaddq_u32(abcd, abcd_in);
    efgh = vaddq_u32(efgh, efgh_in);
  }
  vst1q_u32(state, abcd);
  vst1q_u32(state + 4, efgh);
}

bool HasArmv8Sha2() { return (getauxval(AT_HWCAP) & HWCAP_SHA2) != 0; }
#endif

struct Choice {
  Sha256Blocks blocks;
  const char* name;
};

Choice Choose() {
#if LLM_SHA256_X86
  if (HasShaNi()) return {BlocksShaNi, "x86-sha-ni"};
#elif LLM_SHA256_ARM
  if (HasArmv8Sha2()) return {BlocksArmv8, "armv8-sha2"};
#endif
  return {Sha256BlocksPortable, "portable"};
}

const Choice& Chosen() {
  static const Choice choice = Choose();
  return choice;
}

}  // namespace

void Sha256BlocksPortable(uint32_t state[8], const uint8_t* data,
                          size_t blocks) {
  for (; blocks > 0; --blocks, data += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      w[i] = (uint32_t{data[i * 4]} << 24) | (uint32_t{data[i * 4 + 1]} << 16) |
             (uint32_t{data[i * 4 + 2]} << 8) | uint32_t{data[i * 4 + 3]};
    }
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 =
          Rotr(w[i - 15], 7) ^ Rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 =
          Rotr(w[i - 2], 17) ^ Rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 = h + (Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25)) +
                          ((e & f) ^ (~e & g)) + kRound[i] + w[i];
      const uint32_t t2 = (Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22)) +
                          ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

Sha256Blocks BestSha256Blocks() { return Chosen().blocks; }
const char* Sha256BlocksName() { return Chosen().name; }

}  // namespace llm
