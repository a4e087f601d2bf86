#include "runtime/sha256.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "runtime/sha256_blocks.h"

namespace llm {
namespace {

std::string Hash(const std::string& text) {
  return Sha256Bytes(reinterpret_cast<const uint8_t*>(text.data()),
                     text.size());
}

TEST(Sha256, KnownDigests) {
  // FIPS 180-4 examples.
  EXPECT_EQ(Hash(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Hash(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, TheCpusImplementationMatchesThePortableOne) {
  std::printf("SHA-256 blocks: %s\n", Sha256BlocksName());
  std::mt19937 random(7);
  std::vector<uint8_t> data(64 * 40);
  for (auto& byte : data) byte = static_cast<uint8_t>(random());
  for (size_t blocks : {1, 2, 3, 17, 40}) {
    uint32_t best[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint32_t portable[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    BestSha256Blocks()(best, data.data(), blocks);
    Sha256BlocksPortable(portable, data.data(), blocks);
    EXPECT_EQ(std::vector<uint32_t>(best, best + 8),
              std::vector<uint32_t>(portable, portable + 8))
        << blocks << " blocks";
  }
}

TEST(Sha256, FileRangesAndEveryLengthAroundABlock) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('a' + i % 26);
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/f";
  std::ofstream(path, std::ios::binary) << text;
  for (size_t offset : {0, 1, 63, 64, 65}) {
    for (size_t length : {0, 1, 55, 56, 63, 64, 65, 128, 200}) {
      EXPECT_EQ(Sha256FileRange(path, offset, length),
                Hash(text.substr(offset, length)))
          << offset << "+" << length;
    }
  }
  EXPECT_EQ(Sha256File(path), Hash(text));
  EXPECT_EQ(Sha256FileRange(path, 250, 100), "") << "past the end";
}

}  // namespace
}  // namespace llm
