#include "model/provenance.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>

namespace spmv::grade {
namespace {

// SHA-256 as FIPS 180-4 defines it.
class Sha256 {
 public:
  void add(std::string_view bytes) {
    for (const char c : bytes) {
      block_[filled_++] = static_cast<std::uint8_t>(c);
      if (filled_ == 64) {
        compress();
        filled_ = 0;
      }
    }
    length_ += bytes.size();
  }

  std::string hex() {
    const std::uint64_t bits = length_ * 8;
    add(std::string_view("\x80", 1));
    while (filled_ != 56) add(std::string_view("\0", 1));
    for (int shift = 56; shift >= 0; shift -= 8) block_[filled_++] = static_cast<std::uint8_t>(bits >> shift);
    compress();
    std::string text;
    char digits[9];
    for (const std::uint32_t word : state_) {
      std::snprintf(digits, sizeof digits, "%08x", word);
      text += digits;
    }
    return text;
  }

 private:
  static std::uint32_t rotate(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

  void compress() {
    static constexpr std::array<std::uint32_t, 64> kRound = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::array<std::uint32_t, 64> w{};
    for (std::size_t i = 0; i < 16; ++i) {
      w[i] = static_cast<std::uint32_t>(block_[4 * i]) << 24 | static_cast<std::uint32_t>(block_[4 * i + 1]) << 16 |
             static_cast<std::uint32_t>(block_[4 * i + 2]) << 8 | static_cast<std::uint32_t>(block_[4 * i + 3]);
    }
    for (std::size_t i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = state_;
    for (std::size_t i = 0; i < 64; ++i) {
      const std::uint32_t s1 = rotate(v[4], 6) ^ rotate(v[4], 11) ^ rotate(v[4], 25);
      const std::uint32_t choice = (v[4] & v[5]) ^ (~v[4] & v[6]);
      const std::uint32_t t1 = v[7] + s1 + choice + kRound[i] + w[i];
      const std::uint32_t s0 = rotate(v[0], 2) ^ rotate(v[0], 13) ^ rotate(v[0], 22);
      const std::uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      const std::uint32_t t2 = s0 + majority;
      v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (std::size_t i = 0; i < 8; ++i) state_[i] += v[i];
  }

  std::array<std::uint32_t, 8> state_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint8_t, 64> block_{};
  std::size_t filled_ = 0;
  std::uint64_t length_ = 0;
};

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Sha256 hash;
  hash.add(bytes);
  return hash.hex();
}

std::string sha256_file(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw std::runtime_error(file.string() + ": cannot read");
  Sha256 hash;
  std::array<char, 1 << 16> buffer{};
  while (stream) {
    stream.read(buffer.data(), buffer.size());
    hash.add(std::string_view(buffer.data(), static_cast<std::size_t>(stream.gcount())));
  }
  return hash.hex();
}

namespace {

constexpr int kSecretCheckRounds = 20000;

}  // namespace

std::string secret_check(const std::string& secret, const std::string& salt) {
  std::string used = salt;
  if (used.empty()) {
    std::random_device device;
    char text[33];
    std::snprintf(text, sizeof text, "%08x%08x%08x%08x", device(), device(), device(), device());
    used = text;
  }
  std::string digest = sha256_hex("spmv-grade secret seed check\n" + used + "\n" + secret);
  for (int round = 0; round < kSecretCheckRounds; ++round) digest = sha256_hex(digest + secret);
  return used + ":" + digest;
}

bool secret_matches(const std::string& secret, const std::string& check) {
  const auto colon = check.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  return secret_check(secret, check.substr(0, colon)) == check;
}

std::string file_digest(const std::filesystem::path& file) {
  try {
    return "sha256:" + sha256_file(file);
  } catch (const std::exception& e) {
    return std::string("unreadable: ") + e.what();
  }
}

FileDigests::~FileDigests() {
  // Every thread begun is waited for: none outlives the object.
  for (auto& [file, digest] : digests_) {
    if (digest.wait_for(std::chrono::seconds(0)) != std::future_status::deferred) digest.wait();
  }
}

std::shared_future<std::string> FileDigests::find_or_start(const std::filesystem::path& file) {
  const std::lock_guard lock(mutex_);
  auto found = digests_.find(file);
  if (found == digests_.end()) {
    // On a thread of its own, or at the first get() where none can be made.
    auto digest = std::async(std::launch::async | std::launch::deferred, [file] { return file_digest(file); });
    found = digests_.emplace(file, digest.share()).first;
  }
  return found->second;
}

void FileDigests::start(const std::filesystem::path& file) { static_cast<void>(find_or_start(file)); }

std::string FileDigests::get(const std::filesystem::path& file) { return find_or_start(file).get(); }

}  // namespace spmv::grade
