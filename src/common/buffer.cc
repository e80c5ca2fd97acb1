// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "common/buffer.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace lancedb {
namespace {

int64_t PaddedCapacity(int64_t size) {
  int64_t padded = (std::max<int64_t>(size, 1) + kBufferAlignment - 1) / kBufferAlignment;
  return padded * kBufferAlignment;
}

uint8_t* AlignedAlloc(int64_t capacity) {
  void* p = std::aligned_alloc(kBufferAlignment, static_cast<size_t>(capacity));
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<uint8_t*>(p);
}

}  // namespace

std::shared_ptr<Buffer> Buffer::Allocate(int64_t size) {
  int64_t capacity = PaddedCapacity(size);
  uint8_t* p = AlignedAlloc(capacity);
  std::memset(p, 0, static_cast<size_t>(capacity));
  std::shared_ptr<const void> owner(p, [](const void* q) { std::free(const_cast<void*>(q)); });
  return std::shared_ptr<Buffer>(new Buffer(p, size, std::move(owner)));
}

std::shared_ptr<Buffer> Buffer::AllocateUninitialized(int64_t size) {
  int64_t capacity = PaddedCapacity(size);
  uint8_t* p = AlignedAlloc(capacity);
  // Zero only the padding, so that reads of the padded tail are deterministic.
  if (capacity > size) std::memset(p + size, 0, static_cast<size_t>(capacity - size));
  std::shared_ptr<const void> owner(p, [](const void* q) { std::free(const_cast<void*>(q)); });
  return std::shared_ptr<Buffer>(new Buffer(p, size, std::move(owner)));
}

std::shared_ptr<Buffer> Buffer::Copy(const void* data, int64_t size) {
  auto buf = AllocateUninitialized(size);
  if (size > 0) std::memcpy(buf->mutable_data(), data, static_cast<size_t>(size));
  return buf;
}

std::shared_ptr<Buffer> Buffer::Wrap(const uint8_t* data, int64_t size,
                                     std::shared_ptr<const void> owner) {
  return std::shared_ptr<Buffer>(new Buffer(data, size, std::move(owner)));
}

std::shared_ptr<Buffer> Buffer::Slice(const std::shared_ptr<Buffer>& parent, int64_t offset,
                                      int64_t length) {
  return std::shared_ptr<Buffer>(new Buffer(parent->data() + offset, length, parent));
}

void BufferBuilder::AlignedFree::operator()(uint8_t* p) const { std::free(p); }

void BufferBuilder::Reserve(int64_t capacity) {
  if (capacity <= capacity_) return;
  int64_t new_capacity = PaddedCapacity(std::max(capacity, capacity_ * 2));
  uint8_t* p = AlignedAlloc(new_capacity);
  if (size_ > 0) std::memcpy(p, data_.get(), static_cast<size_t>(size_));
  std::memset(p + size_, 0, static_cast<size_t>(new_capacity - size_));
  data_.reset(p);
  capacity_ = new_capacity;
}

void BufferBuilder::Resize(int64_t new_size) {
  Reserve(new_size);
  if (new_size > size_) std::memset(data_.get() + size_, 0, static_cast<size_t>(new_size - size_));
  size_ = new_size;
}

void BufferBuilder::AppendZeros(int64_t count) { AppendFill(0, count); }

void BufferBuilder::AppendFill(uint8_t byte, int64_t count) {
  if (count <= 0) return;
  Reserve(size_ + count);
  std::memset(data_.get() + size_, byte, static_cast<size_t>(count));
  size_ += count;
}

void BufferBuilder::PadTo(int64_t alignment, uint8_t byte) {
  int64_t rem = size_ % alignment;
  if (rem != 0) AppendFill(byte, alignment - rem);
}

std::shared_ptr<Buffer> BufferBuilder::Finish() {
  if (!data_) return Buffer::Allocate(0);
  uint8_t* raw = data_.release();
  int64_t size = size_;
  size_ = 0;
  capacity_ = 0;
  std::shared_ptr<const void> owner(raw, [](const void* q) { std::free(const_cast<void*>(q)); });
  return Buffer::Wrap(raw, size, std::move(owner));
}

}  // namespace lancedb
