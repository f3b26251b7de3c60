// The PNG writer, read back by a minimal decoder written here from the PNG
// specification: chunk layout, CRCs, IHDR fields, and pixels decoded from
// the IDAT with zlib's uncompress.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

#include "image.hpp"
#include "random_csr.hpp"

namespace spmv::ta {
namespace {

struct Chunk {
  std::string type;
  std::vector<std::uint8_t> data;
  std::uint32_t stored_crc = 0;
  std::uint32_t computed_crc = 0;
};

std::uint32_t read_u32(const std::vector<std::uint8_t>& bytes, std::size_t at) {
  return (std::uint32_t{bytes.at(at)} << 24) | (std::uint32_t{bytes.at(at + 1)} << 16) |
         (std::uint32_t{bytes.at(at + 2)} << 8) | std::uint32_t{bytes.at(at + 3)};
}

// Splits a PNG after its signature into chunks; fails the test on a chunk
// running past the end.
std::vector<Chunk> chunks_of(const std::vector<std::uint8_t>& png) {
  std::vector<Chunk> chunks;
  std::size_t at = 8;
  while (at < png.size()) {
    const std::uint32_t length = read_u32(png, at);
    EXPECT_LE(at + 12 + length, png.size()) << "chunk at byte " << at << " runs past the end";
    if (at + 12 + length > png.size()) break;
    Chunk chunk;
    chunk.type.assign(png.begin() + static_cast<std::ptrdiff_t>(at + 4),
                      png.begin() + static_cast<std::ptrdiff_t>(at + 8));
    chunk.data.assign(png.begin() + static_cast<std::ptrdiff_t>(at + 8),
                      png.begin() + static_cast<std::ptrdiff_t>(at + 8 + length));
    chunk.stored_crc = read_u32(png, at + 8 + length);
    chunk.computed_crc = static_cast<std::uint32_t>(crc32(0, png.data() + at + 4, 4 + length));
    chunks.push_back(std::move(chunk));
    at += 12 + length;
  }
  return chunks;
}

// Decodes an 8-bit grayscale, non-interlaced PNG whose scanlines all use
// filter 0, checking every structural field on the way.
GrayImage decode(const std::vector<std::uint8_t>& png) {
  const std::vector<std::uint8_t> signature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  EXPECT_EQ(std::vector<std::uint8_t>(png.begin(), png.begin() + 8), signature);
  const auto chunks = chunks_of(png);
  EXPECT_GE(chunks.size(), 3u);
  if (chunks.size() < 3) return GrayImage(1, 1);
  for (const auto& chunk : chunks) EXPECT_EQ(chunk.stored_crc, chunk.computed_crc) << "CRC of chunk " << chunk.type;
  EXPECT_EQ(chunks.front().type, "IHDR");
  EXPECT_EQ(chunks.back().type, "IEND");
  EXPECT_TRUE(chunks.back().data.empty());
  const auto& header = chunks.front().data;
  EXPECT_EQ(header.size(), 13u);
  const std::uint32_t width = read_u32(header, 0);
  const std::uint32_t height = read_u32(header, 4);
  EXPECT_EQ(header.at(8), 8) << "bit depth";
  EXPECT_EQ(header.at(9), 0) << "color type (grayscale)";
  EXPECT_EQ(header.at(10), 0) << "compression method";
  EXPECT_EQ(header.at(11), 0) << "filter method";
  EXPECT_EQ(header.at(12), 0) << "interlace method";

  std::vector<std::uint8_t> compressed;
  for (const auto& chunk : chunks) {
    if (chunk.type == "IDAT") compressed.insert(compressed.end(), chunk.data.begin(), chunk.data.end());
  }
  std::vector<std::uint8_t> raw(static_cast<std::size_t>(height) * (width + 1));
  uLongf raw_size = static_cast<uLongf>(raw.size());
  EXPECT_EQ(uncompress(raw.data(), &raw_size, compressed.data(), static_cast<uLong>(compressed.size())), Z_OK);
  EXPECT_EQ(raw_size, raw.size()) << "decompressed bytes";

  GrayImage image(width, height);
  for (std::uint32_t y = 0; y < height; ++y) {
    const std::size_t line = static_cast<std::size_t>(y) * (width + 1);
    EXPECT_EQ(raw[line], 0) << "filter type of scanline " << y;
    for (std::uint32_t x = 0; x < width; ++x) image.at(x, y) = raw[line + 1 + x];
  }
  return image;
}

TEST(Png, TinyKnownPattern) {
  // 3 x 2:  0 255 7 / 128 1 254
  GrayImage image(3, 2);
  image.pixels = {0, 255, 7, 128, 1, 254};
  const auto png = encode_png(image);
  const GrayImage decoded = decode(png);
  EXPECT_EQ(decoded.width, 3u);
  EXPECT_EQ(decoded.height, 2u);
  EXPECT_EQ(decoded.pixels, image.pixels);
  const auto chunks = chunks_of(png);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[1].type, "IDAT");
}

TEST(Png, RandomImagesRoundTrip) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 4; ++round) {
    const auto width = std::uniform_int_distribution<std::uint32_t>(1, 300)(rng);
    const auto height = std::uniform_int_distribution<std::uint32_t>(1, 300)(rng);
    GrayImage image(width, height);
    for (auto& pixel : image.pixels) pixel = static_cast<std::uint8_t>(rng());
    const GrayImage decoded = decode(encode_png(image));
    EXPECT_EQ(decoded.width, width);
    EXPECT_EQ(decoded.height, height);
    EXPECT_EQ(decoded.pixels, image.pixels) << width << " x " << height;
  }
}

TEST(Png, RefusesAnImageWithoutPixels) {
  EXPECT_THROW(encode_png(GrayImage(0, 5)), std::runtime_error);
  EXPECT_THROW(encode_png(GrayImage(5, 0)), std::runtime_error);
}

}  // namespace
}  // namespace spmv::ta
