// Start-up code for QEMU's MPS2 and MPS3 boards: the vector table, .data and .bss, the FPU,
// semihosting, then main(). Faults end the run through semihosting without touching the stack
// (which may be the reason for the fault), so an overflow shows up as a failed run, never as a
// hang.
#include <cstdint>

extern "C" {
extern std::uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern std::uint32_t __stack_top[];
void initialise_monitor_handles();
void __libc_init_array();
int main();
void exit(int);
[[noreturn]] void Reset_Handler();
[[noreturn]] void Fault_Handler();
void SysTick_Handler();
}

namespace {

volatile std::uint32_t& reg(std::uintptr_t address) {
  return *reinterpret_cast<volatile std::uint32_t*>(address);
}

void default_handler() {}

}  // namespace

// main.cpp counts SysTick wraps to time inferences; without it a tick does nothing.
extern "C" __attribute__((weak)) void SysTick_Handler() {}

// Semihosting SYS_EXIT with ADP_Stopped_RunTimeErrorUnknown: QEMU exits with status 1.
extern "C" __attribute__((naked, noreturn)) void Fault_Handler() {
  __asm volatile(
      "movs r0, #0x18\n"
      "ldr r1, =0x20023\n"
      "bkpt 0xab\n"
      "b .\n");
}

extern "C" void Reset_Handler() {
  for (std::uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (std::uint32_t* dst = __bss_start; dst < __bss_end;) *dst++ = 0;
#if defined(__ARM_FP)
  reg(0xE000ED88) |= 0xFu << 20;  // CPACR: full access to CP10 and CP11 (the FPU)
  __asm volatile("dsb\n isb" ::: "memory");
#endif
#if !defined(__ARM_FEATURE_UNALIGNED)
  reg(0xE000ED14) |= 1u << 3;  // CCR.UNALIGN_TRP: unaligned accesses fault, as on ARMv6-M
#endif
  __libc_init_array();
  initialise_monitor_handles();
  exit(main());
  for (;;) {
  }
}

using Handler = void (*)();
__attribute__((section(".vectors"), used)) const Handler kVectors[16] = {
    reinterpret_cast<Handler>(__stack_top),
    Reset_Handler,
    Fault_Handler,  // NMI
    Fault_Handler,  // HardFault
    Fault_Handler,  // MemManage
    Fault_Handler,  // BusFault
    Fault_Handler,  // UsageFault
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    default_handler,  // SVCall
    default_handler,  // DebugMonitor
    nullptr,
    default_handler,  // PendSV
    SysTick_Handler,
};
