# Installs the pecheck package: headers, libraries, the CLI, the plug-in ABI header and a
# CMake package so that find_package(pecheck) works from a separate project.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecheck
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/spec/pecheck_kernel.h ${PROJECT_SOURCE_DIR}/spec/pecheck_plugin.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pecheck)
install(FILES ${PROJECT_SOURCE_DIR}/spec/budgets.tsv
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pecheck OPTIONAL)

install(EXPORT pecheckTargets NAMESPACE pecheck::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecheck)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pecheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pecheckConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecheck)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pecheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pecheckConfig.cmake ${PROJECT_BINARY_DIR}/pecheckConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pecheck)
