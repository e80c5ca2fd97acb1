# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# lancedb_add_layer(<layer> DEPS <targets...>)
#   Builds src/<layer>/*.cc (tests, benchmarks and fuzz targets excluded) into the static
#   library lancedb_<layer>, and src/<layer>/*_test.cc into one GoogleTest binary
#   <layer>_test registered with ctest under the label "fast" (see lancedb_add_test), in
#   SHARDS ctest tests when given.
function(lancedb_add_layer layer)
  cmake_parse_arguments(ARG "" "SHARDS" "DEPS;TEST_DEPS" ${ARGN})
  file(GLOB _all CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  set(_srcs)
  set(_tests)
  foreach(f ${_all})
    if(f MATCHES "_test\\.cc$")
      list(APPEND _tests ${f})
    elseif(NOT f MATCHES "_(benchmark|fuzz)\\.cc$")
      list(APPEND _srcs ${f})
    endif()
  endforeach()
  if(NOT _srcs)
    # A layer with no sources yet (while it is being built up) still takes part in the graph.
    file(WRITE ${LANCEDB_GEN_DIR}/empty_${layer}.cc "// empty layer\n")
    set(_srcs ${LANCEDB_GEN_DIR}/empty_${layer}.cc)
  endif()
  add_library(lancedb_${layer} STATIC ${_srcs})
  target_include_directories(lancedb_${layer} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${LANCEDB_GEN_DIR}>
    $<INSTALL_INTERFACE:include>)
  target_link_libraries(lancedb_${layer} PUBLIC ${ARG_DEPS})
  if(LANCEDB_BUILD_TESTS AND _tests)
    add_executable(${layer}_test ${_tests})
    target_link_libraries(${layer}_test PRIVATE lancedb_${layer} ${ARG_TEST_DEPS})
    lancedb_add_test(${layer}_test fast SHARDS ${ARG_SHARDS})
  endif()
endfunction()

# lancedb_add_test(<executable target> <label> [SHARDS <n>])
#   Link GoogleTest into a test binary, register it with ctest under <label>, and compile in
#   where it finds the sources and the LanceDB fixtures (src/common/test_dirs.h); the
#   environment variables LANCEDB_SOURCE_DIR and LANCEDB_FIXTURES_DIR override both at run time.
#   SHARDS splits the binary into n ctest tests (<target>_shard<i>, GoogleTest's own sharding:
#   each runs every n-th test), so that `ctest -j` runs a long binary on every core; the shards
#   are given a cost that makes ctest start them first.
#   A test binary's own code is compiled with LANCEDB_TEST_COMPILE_OPTIONS (by default -O1 in
#   the optimized builds): the library it tests is what must be fast, and -O3 on the test files
#   would be a third of the release build's time. The sanitizer builds compile them at -O0.
#   The producer tests, which other tests run with their inputs (tests/compat/*.py through
#   conftest.run_gtest, or a parent test in a child process), are left out of the ctest run:
#   without their inputs they fail.
set(LANCEDB_TEST_COMPILE_OPTIONS "$<$<CONFIG:Release,RelWithDebInfo>:-O1>" CACHE STRING
    "Compile options of the test binaries' own files (after the build type's)")
set(LANCEDB_PRODUCER_TESTS
    "TableCompat.ReadTableFromPylance:StatsCompat.WriteTableForPylance:FileCompat.WriteEveryTypeForPylance:VectorIndexDeterminism.WriteIndexedTableForOtherProcess:KMeans.SeededTrainingChild")
#   A test file's helpers live in `namespace LANCEDB_TEST_FILE_NS { ... }`: anonymous in a
#   normal build, and in a unity build (scripts/build.sh) a namespace of the file's own, so that
#   two test files in one unity source do not see each other's helpers.
function(lancedb_test_file_namespace target)
  if(CMAKE_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD_UNIQUE_ID LANCEDB_TEST_FILE_NS)
  else()
    target_compile_definitions(${target} PRIVATE LANCEDB_TEST_FILE_NS=)
  endif()
endfunction()

function(lancedb_add_test target label)
  cmake_parse_arguments(ARG "" "SHARDS" "" ${ARGN})
  lancedb_test_file_namespace(${target})
  target_link_libraries(${target} PRIVATE GTest::gtest lancedb_gtest_main)
  target_compile_definitions(${target} PRIVATE
    LANCEDB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LANCEDB_TEST_FIXTURES_DIR="${LANCEDB_FIXTURES_DIR}")
  target_compile_options(${target} PRIVATE ${LANCEDB_TEST_COMPILE_OPTIONS})
  if(NOT ARG_SHARDS OR ARG_SHARDS LESS 2)
    add_test(NAME ${target} COMMAND ${target} --gtest_filter=-${LANCEDB_PRODUCER_TESTS})
    set_tests_properties(${target} PROPERTIES LABELS ${label})
    return()
  endif()
  math(EXPR _last "${ARG_SHARDS} - 1")
  foreach(_i RANGE ${_last})
    add_test(NAME ${target}_shard${_i} COMMAND ${target} --gtest_filter=-${LANCEDB_PRODUCER_TESTS})
    set_tests_properties(${target}_shard${_i} PROPERTIES LABELS ${label} COST 1000
      ENVIRONMENT "GTEST_TOTAL_SHARDS=${ARG_SHARDS};GTEST_SHARD_INDEX=${_i}")
  endforeach()
endfunction()

# lancedb_add_tsan_test(<layer> <test files>...)
#   In the ThreadSanitizer build only (-DLANCEDB_TSAN=ON): the test binary <layer>_tsan_test of
#   the layer's concurrency tests alone, so that this build compiles the library and those files
#   rather than every test of the layer. scripts/test.sh runs it with a filter.
function(lancedb_add_tsan_test layer)
  if(NOT LANCEDB_TSAN OR NOT LANCEDB_BUILD_TESTS)
    return()
  endif()
  set(_files)
  foreach(f ${ARGN})
    list(APPEND _files ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
  add_executable(${layer}_tsan_test ${_files})
  lancedb_test_file_namespace(${layer}_tsan_test)
  target_link_libraries(${layer}_tsan_test PRIVATE lancedb_${layer} GTest::gtest lancedb_gtest_main)
  target_compile_options(${layer}_tsan_test PRIVATE ${LANCEDB_TEST_COMPILE_OPTIONS})
  target_compile_definitions(${layer}_tsan_test PRIVATE
    LANCEDB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LANCEDB_TEST_FIXTURES_DIR="${LANCEDB_FIXTURES_DIR}")
endfunction()

# lancedb_add_protos(<target> <proto files relative to src/>...)
#   Generate C++ for the protos (imports are resolved from src/) into the gen directory and
#   add them to <target>.
function(lancedb_add_protos target)
  set(_abs)
  foreach(p ${ARGN})
    list(APPEND _abs ${PROJECT_SOURCE_DIR}/src/${p})
  endforeach()
  protobuf_generate(TARGET ${target} LANGUAGE cpp PROTOS ${_abs}
    IMPORT_DIRS ${PROJECT_SOURCE_DIR}/src PROTOC_OUT_DIR ${LANCEDB_GEN_DIR})
  target_link_libraries(${target} PUBLIC protobuf::libprotobuf)
endfunction()
