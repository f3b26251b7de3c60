// An 8-bit grayscale picture and its PNG encoding.
//
// The PNG is written here rather than through an image library: the format
// needs only a signature, three chunk kinds (IHDR, IDAT, IEND), zlib's
// compress2 and crc32, and the grader already links zlib.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace spmv::ta {

inline constexpr std::uint8_t kWhite = 255;
inline constexpr std::uint8_t kBlack = 0;

struct GrayImage {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> pixels;  // row-major, top row first

  GrayImage(std::uint32_t w, std::uint32_t h, std::uint8_t fill = kWhite);
  [[nodiscard]] std::uint8_t& at(std::uint32_t x, std::uint32_t y) {
    return pixels[static_cast<std::size_t>(y) * width + x];
  }
  [[nodiscard]] std::uint8_t at(std::uint32_t x, std::uint32_t y) const {
    return pixels[static_cast<std::size_t>(y) * width + x];
  }
};

// The complete PNG file (8-bit grayscale, no interlace, filter "None" on
// every scanline). Throws std::runtime_error if zlib fails.
std::vector<std::uint8_t> encode_png(const GrayImage& image);

// Writes `bytes` to `path`; throws std::runtime_error naming the path.
void write_file(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes);
void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace spmv::ta
