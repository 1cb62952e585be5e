/* ProcessPrng, which Rust's standard library takes its randomness from on
 * Windows 10 and later (bcryptprimitives.dll), for Debian's wine 8, which
 * lacks it: the same bytes from the older RtlGenRandom (advapi32's
 * SystemFunction036). Tests under wine only; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
