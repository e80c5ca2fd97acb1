# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
# Installation and the CMake package config: find_package(lancedb) -> lancedb::lancedb.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS lancedb lancedb_common lancedb_io lancedb_array lancedb_format lancedb_table lancedb_expr
                lancedb_index lancedb_snowball lancedb_query
                lancedb_db
        EXPORT lancedbTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/lancedb DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT lancedbTargets NAMESPACE lancedb::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lancedb)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lancedbConfig.cmake.in
  ${CMAKE_BINARY_DIR}/lancedbConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lancedb)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/lancedbConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/lancedbConfig.cmake ${CMAKE_BINARY_DIR}/lancedbConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lancedb)
