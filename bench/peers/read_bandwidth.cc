// read_bandwidth: the machine's memory read bandwidth, STREAM-style.
//
//   read_bandwidth --threads=2 --mib=512 --repeats=10
//
// Each thread sums its own contiguous slice of one buffer far larger than the
// caches, so every byte comes from DRAM, the way a decode step streams the
// model's weights. Prints JSON: the best and median GB/s over the repeats.
// The decode ceiling of a model is this bandwidth over the bytes it reads
// per token (bench/peers/pte_bytes.py).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  int threads = 2;
  int64_t mib = 512;
  int repeats = 10;
};

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const long long value =
        eq == std::string::npos ? 0 : std::atoll(arg.c_str() + eq + 1);
    if (value <= 0) {
      std::fprintf(stderr,
                   "read_bandwidth: error: '%s': expected --threads=N, "
                   "--mib=N or --repeats=N with N > 0\n",
                   arg.c_str());
      return false;
    }
    if (name == "--threads") {
      options->threads = static_cast<int>(value);
    } else if (name == "--mib") {
      options->mib = value;
    } else if (name == "--repeats") {
      options->repeats = static_cast<int>(value);
    } else {
      std::fprintf(stderr, "read_bandwidth: error: unknown flag '%s'\n",
                   arg.c_str());
      return false;
    }
  }
  return true;
}

// Four independent sums so the loads are not serialized on one add chain;
// the compiler vectorizes the loop.
uint64_t SumSlice(const uint64_t* data, size_t count) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  for (size_t i = 0; i + 4 <= count; i += 4) {
    a += data[i];
    b += data[i + 1];
    c += data[i + 2];
    d += data[i + 3];
  }
  return a + b + c + d;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) return 2;
  const size_t words = static_cast<size_t>(options.mib) * (1 << 20) / 8;
  // Written once, so every page is mapped before timing starts.
  std::vector<uint64_t> buffer(words, 1);
  const size_t slice = words / options.threads;

  std::vector<double> seconds;
  std::vector<uint64_t> sums(options.threads);
  for (int r = 0; r < options.repeats; ++r) {
    // Starting threads costs microseconds; a pass takes tens of milliseconds.
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < options.threads; ++t) {
      workers.emplace_back(
          [&, t] { sums[t] += SumSlice(buffer.data() + t * slice, slice); });
    }
    for (auto& worker : workers) worker.join();
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - started)
                          .count());
  }

  uint64_t total = 0;
  for (uint64_t s : sums) total += s;
  // Every word is 1: the sums prove that all the bytes were read.
  const uint64_t expected = static_cast<uint64_t>(slice - slice % 4) *
                            options.threads * options.repeats;
  if (total != expected) {
    std::fprintf(stderr, "read_bandwidth: error: read %llu words, not %llu\n",
                 static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(expected));
    return 1;
  }
  const double bytes =
      static_cast<double>(slice - slice % 4) * 8 * options.threads;
  std::sort(seconds.begin(), seconds.end());
  std::printf(
      "{\"threads\": %d, \"bytes_per_pass\": %.0f, \"repeats\": %d, "
      "\"best_gb_s\": %.2f, \"median_gb_s\": %.2f}\n",
      options.threads, bytes, options.repeats, bytes / seconds.front() / 1e9,
      bytes / seconds[seconds.size() / 2] / 1e9);
  return 0;
}
