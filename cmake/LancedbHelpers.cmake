# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# lancedb_add_layer(<layer> DEPS <targets...>)
#   Builds src/<layer>/*.cc (tests, benchmarks and fuzz targets excluded) into the static
#   library lancedb_<layer>, and src/<layer>/*_test.cc into one GoogleTest binary
#   <layer>_test registered with ctest under the label "fast" (see lancedb_add_test).
function(lancedb_add_layer layer)
  cmake_parse_arguments(ARG "" "" "DEPS;TEST_DEPS" ${ARGN})
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
    lancedb_add_test(${layer}_test fast)
  endif()
endfunction()

# lancedb_add_test(<executable target> <label>)
#   Link GoogleTest into a test binary, register it with ctest under <label>, and compile in
#   where it finds the sources and the LanceDB fixtures (src/common/test_dirs.h); the
#   environment variables LANCEDB_SOURCE_DIR and LANCEDB_FIXTURES_DIR override both at run time.
#   The producer tests, which other tests run with their inputs (tests/compat/*.py through
#   conftest.run_gtest, or a parent test in a child process), are left out of the ctest run:
#   without their inputs they fail.
set(LANCEDB_PRODUCER_TESTS
    "TableCompat.ReadTableFromPylance:StatsCompat.WriteTableForPylance:FileCompat.WriteEveryTypeForPylance:VectorIndexDeterminism.WriteIndexedTableForOtherProcess:KMeans.SeededTrainingChild")
function(lancedb_add_test target label)
  target_link_libraries(${target} PRIVATE GTest::gtest GTest::gtest_main)
  target_compile_definitions(${target} PRIVATE
    LANCEDB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LANCEDB_TEST_FIXTURES_DIR="${LANCEDB_FIXTURES_DIR}")
  add_test(NAME ${target} COMMAND ${target} --gtest_filter=-${LANCEDB_PRODUCER_TESTS})
  set_tests_properties(${target} PROPERTIES LABELS ${label})
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
