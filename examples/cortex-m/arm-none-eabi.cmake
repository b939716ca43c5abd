# CMake toolchain file for bare-metal Arm (arm-none-eabi-gcc, newlib with semihosting):
#   cmake -DCMAKE_TOOLCHAIN_FILE=examples/cortex-m/arm-none-eabi.cmake -DONNXC_EXECUTABLE=<host onnxc>
# A host onnxc (ONNXC_EXECUTABLE, see cmake/onnxc.cmake) generates the code; this compiler builds it.
# CMAKE_SYSTEM_PROCESSOR picks the CPU flags: cortex-m4 (hard float, the default) or cortex-m0plus.
set(CMAKE_SYSTEM_NAME Generic)
if(NOT CMAKE_SYSTEM_PROCESSOR)
  set(CMAKE_SYSTEM_PROCESSOR cortex-m4)
endif()
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# Executables need the start-up code and linker script: test compiler checks build a library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
if(CMAKE_SYSTEM_PROCESSOR STREQUAL "cortex-m4")
  set(cpu_flags "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
else()
  set(cpu_flags "-mcpu=${CMAKE_SYSTEM_PROCESSOR} -mthumb -mfloat-abi=soft")
endif()
set(CMAKE_C_FLAGS_INIT "${cpu_flags} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${cpu_flags} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=rdimon.specs -Wl,--gc-sections")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
