// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Mutex and MutexLock: std::mutex with Clang thread-safety annotations, so that a Clang build
// with -Wthread-safety checks that members marked LANCEDB_GUARDED_BY(mu_) are only touched with
// mu_ held (the annotations are empty for other compilers). The TSan build in CI is such a build.

#pragma once

#include <mutex>

#if defined(__clang__)
#define LANCEDB_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define LANCEDB_THREAD_ANNOTATION(x)
#endif

#define LANCEDB_CAPABILITY(x) LANCEDB_THREAD_ANNOTATION(capability(x))
#define LANCEDB_SCOPED_CAPABILITY LANCEDB_THREAD_ANNOTATION(scoped_lockable)
#define LANCEDB_GUARDED_BY(x) LANCEDB_THREAD_ANNOTATION(guarded_by(x))
#define LANCEDB_PT_GUARDED_BY(x) LANCEDB_THREAD_ANNOTATION(pt_guarded_by(x))
#define LANCEDB_REQUIRES(...) LANCEDB_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define LANCEDB_EXCLUDES(...) LANCEDB_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define LANCEDB_ACQUIRE(...) LANCEDB_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define LANCEDB_RELEASE(...) LANCEDB_THREAD_ANNOTATION(release_capability(__VA_ARGS__))

namespace lancedb {

/// A std::mutex the thread-safety analysis knows. Not recursive.
class LANCEDB_CAPABILITY("mutex") Mutex {
 public:
  void Lock() LANCEDB_ACQUIRE() { mu_.lock(); }
  void Unlock() LANCEDB_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

/// Holds a Mutex for its scope.
class LANCEDB_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) LANCEDB_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() LANCEDB_RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* mu_;
};

}  // namespace lancedb
