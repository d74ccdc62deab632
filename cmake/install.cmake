# The installed CMake package (find_package(geon CONFIG): geon::geon, geon::headers,
# GEON_PROVIDER_LIBRARY) and pkg-config file (geon.pc). The targets' own install rules are
# in provider/ and tools/; this file is included after them by the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)
set(GEON_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/geon)

install(EXPORT geonTargets NAMESPACE geon:: DESTINATION ${GEON_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/geonConfig.cmake.in
  ${PROJECT_BINARY_DIR}/geonConfig.cmake INSTALL_DESTINATION ${GEON_CMAKE_DIR})
# The C ABI is append-only within a major version (geon.h: GEON_API_VERSION).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/geonConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/geonConfig.cmake ${PROJECT_BINARY_DIR}/geonConfigVersion.cmake
        DESTINATION ${GEON_CMAKE_DIR})

# geon.pc finds its prefix from its own location (${pcfiledir}), so that the files stay right
# when `cmake --install --prefix` puts them somewhere other than CMAKE_INSTALL_PREFIX.
file(RELATIVE_PATH GEON_PC_TO_PREFIX /_/${CMAKE_INSTALL_LIBDIR}/pkgconfig /_)
string(REGEX REPLACE "/$" "" GEON_PC_TO_PREFIX "${GEON_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/geon.pc.in ${PROJECT_BINARY_DIR}/geon.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/geon.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
