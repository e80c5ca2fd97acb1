// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Buffer: a contiguous, immutable-after-construction byte range with shared ownership.
// Buffers allocated here are 64-byte aligned and their capacity is padded to 64 bytes, so
// SIMD kernels may read (never write) up to the padded end. A buffer may also wrap memory
// owned by someone else (an imported Arrow array, a memory-mapped file), keeping that owner
// alive through a type-erased handle. Thread-safety: immutable once shared.

#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lancedb/status.h"

namespace lancedb {

inline constexpr int64_t kBufferAlignment = 64;

class Buffer {
 public:
  /// Allocate `size` zero-initialized bytes, 64-byte aligned.
  static std::shared_ptr<Buffer> Allocate(int64_t size);
  /// Allocate `size` bytes without initializing them (for data about to be overwritten).
  static std::shared_ptr<Buffer> AllocateUninitialized(int64_t size);
  /// Copy `size` bytes from `data`.
  static std::shared_ptr<Buffer> Copy(const void* data, int64_t size);
  static std::shared_ptr<Buffer> Copy(std::string_view bytes) {
    return Copy(bytes.data(), static_cast<int64_t>(bytes.size()));
  }
  /// Copy the elements of a vector of trivially copyable values.
  template <typename T>
  static std::shared_ptr<Buffer> FromVector(const std::vector<T>& values) {
    return Copy(values.data(), static_cast<int64_t>(values.size() * sizeof(T)));
  }
  /// Wrap memory owned elsewhere; `owner` is kept alive as long as the buffer.
  static std::shared_ptr<Buffer> Wrap(const uint8_t* data, int64_t size,
                                      std::shared_ptr<const void> owner);
  /// Return a zero-copy view of `length` bytes at `offset` of `parent`.
  /// REQUIRES: offset + length <= parent->size().
  static std::shared_ptr<Buffer> Slice(const std::shared_ptr<Buffer>& parent, int64_t offset,
                                       int64_t length);

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() = default;

  const uint8_t* data() const { return data_; }
  /// Writable pointer; only for a buffer not yet shared with other readers.
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }
  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data_as() {
    return reinterpret_cast<T*>(mutable_data());
  }
  std::span<const uint8_t> span() const { return {data_, static_cast<size_t>(size_)}; }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }
  bool Equals(const Buffer& other) const {
    return size_ == other.size_ && (size_ == 0 || std::memcmp(data_, other.data_, size_) == 0);
  }

 private:
  Buffer(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner)
      : data_(data), size_(size), owner_(std::move(owner)) {}

  const uint8_t* data_;
  int64_t size_;
  std::shared_ptr<const void> owner_;
};

using BufferPtr = std::shared_ptr<Buffer>;

/// A growable byte buffer for building output; Finish() hands the bytes over as a Buffer.
/// Externally synchronized.
class BufferBuilder {
 public:
  BufferBuilder() = default;
  explicit BufferBuilder(int64_t initial_capacity) { Reserve(initial_capacity); }

  void Reserve(int64_t capacity);
  void Resize(int64_t new_size);  // new bytes are zero
  void Append(const void* data, int64_t size) {
    if (size <= 0) return;
    Reserve(size_ + size);
    std::memcpy(data_.get() + size_, data, size);
    size_ += size;
  }
  void Append(std::span<const uint8_t> bytes) {
    Append(bytes.data(), static_cast<int64_t>(bytes.size()));
  }
  void Append(std::string_view bytes) { Append(bytes.data(), static_cast<int64_t>(bytes.size())); }
  template <typename T>
  void AppendValue(T value) {
    Append(&value, sizeof(T));
  }
  void AppendZeros(int64_t count);
  void AppendFill(uint8_t byte, int64_t count);
  /// Pad with `byte` up to a multiple of `alignment`.
  void PadTo(int64_t alignment, uint8_t byte = 0);

  int64_t size() const { return size_; }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  /// Return the bytes written so far and reset the builder.
  std::shared_ptr<Buffer> Finish();

 private:
  struct AlignedFree {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, AlignedFree> data_;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

}  // namespace lancedb
