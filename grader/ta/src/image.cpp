#include "image.hpp"

#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace spmv::ta {
namespace {

constexpr std::array<std::uint8_t, 8> kPngSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr std::uint8_t kBitDepth = 8;
constexpr std::uint8_t kColorTypeGray = 0;
constexpr std::uint8_t kFilterNone = 0;

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(value >> shift));
}

// A chunk is length, type, data, then the CRC of type and data.
void put_chunk(std::vector<std::uint8_t>& out, std::string_view type, const std::vector<std::uint8_t>& data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t type_at = out.size();
  out.insert(out.end(), type.begin(), type.end());
  out.insert(out.end(), data.begin(), data.end());
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), out.data() + type_at, static_cast<uInt>(out.size() - type_at));
  put_u32(out, static_cast<std::uint32_t>(crc));
}

std::vector<std::uint8_t> header_data(const GrayImage& image) {
  std::vector<std::uint8_t> data;
  put_u32(data, image.width);
  put_u32(data, image.height);
  // Bit depth, color type, compression 0 (deflate), filter method 0, no interlace.
  data.insert(data.end(), {kBitDepth, kColorTypeGray, 0, 0, 0});
  return data;
}

std::vector<std::uint8_t> filtered_scanlines(const GrayImage& image) {
  std::vector<std::uint8_t> raw;
  raw.reserve(static_cast<std::size_t>(image.height) * (image.width + 1));
  for (std::uint32_t y = 0; y < image.height; ++y) {
    raw.push_back(kFilterNone);
    const auto row = image.pixels.begin() + static_cast<std::ptrdiff_t>(y) * image.width;
    raw.insert(raw.end(), row, row + image.width);
  }
  return raw;
}

std::vector<std::uint8_t> deflate(const std::vector<std::uint8_t>& raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<std::uint8_t> packed(size);
  const int status = compress2(packed.data(), &size, raw.data(), static_cast<uLong>(raw.size()), Z_BEST_COMPRESSION);
  if (status != Z_OK) throw std::runtime_error("PNG: zlib compress2 failed with status " + std::to_string(status));
  packed.resize(size);
  return packed;
}

void write_bytes(const std::filesystem::path& path, const char* data, std::size_t size) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file.write(data, static_cast<std::streamsize>(size));
  if (!file) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

GrayImage::GrayImage(std::uint32_t w, std::uint32_t h, std::uint8_t fill)
    : width(w), height(h), pixels(static_cast<std::size_t>(w) * h, fill) {}

std::vector<std::uint8_t> encode_png(const GrayImage& image) {
  if (image.width == 0 || image.height == 0) throw std::runtime_error("PNG: an image needs at least one pixel");
  std::vector<std::uint8_t> out(kPngSignature.begin(), kPngSignature.end());
  put_chunk(out, "IHDR", header_data(image));
  put_chunk(out, "IDAT", deflate(filtered_scanlines(image)));
  put_chunk(out, "IEND", {});
  return out;
}

void write_file(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  write_bytes(path, reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  write_bytes(path, text.data(), text.size());
}

}  // namespace spmv::ta
