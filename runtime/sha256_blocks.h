// SHA-256's compression function over whole 64-byte blocks, with the CPU's
// SHA instructions where it has them: x86 SHA-NI, or ARMv8's SHA2 extension
// (every arm64 phone SoC has it). Checking a program against its manifest
// hashes the whole .pte at every load, and these run it several times faster
// than portable C++ (see docs/runtime.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace llm {

using Sha256Blocks = void (*)(uint32_t state[8], const uint8_t* data,
                              size_t blocks);

// The fastest implementation this CPU supports, detected once.
Sha256Blocks BestSha256Blocks();
// The portable one, the reference the others are tested against.
void Sha256BlocksPortable(uint32_t state[8], const uint8_t* data,
                          size_t blocks);
// "x86-sha-ni", "armv8-sha2" or "portable": what BestSha256Blocks chose.
const char* Sha256BlocksName();

}  // namespace llm
