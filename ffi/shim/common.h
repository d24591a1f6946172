/* Shared part of the ffi shims: layout facts and the access helper.
   Included after the InnoDB headers. Nothing here changes a class. */
#ifndef FFI_SHIM_COMMON_H
#define FFI_SHIM_COMMON_H

#include <cstddef>
#include <cstdint>
#include <cstring>

/* One measured value, read by the Rust side (see src/lib.rs, `sys`). */
struct ffi_fact
{
  uint32_t kind; /* 0 sizeof, 1 offsetof, 2 bit offset, 3 bit width, 4 width */
  const char *ty;
  const char *member;
  uint64_t value;
};

enum { FFI_SIZE = 0, FFI_OFFSET = 1, FFI_BIT_OFFSET = 2, FFI_BIT_WIDTH = 3,
       FFI_WIDTH = 4 };

/* Access to a private member without touching the class: the template
   arguments of an explicit instantiation are not access-checked
   ([temp.spec]/6), so the instantiation below hands out the member pointer
   through a friend function. The class layout is exactly the server's. */
template<typename Tag, typename Tag::type M>
struct ffi_rob { friend typename Tag::type ffi_get(Tag) { return M; } };

/* Storage for a probe object: zeroed, suitably aligned, never constructed
   (only addresses of members and raw bytes are taken). */
template<typename T> static T *ffi_zeroed()
{
  alignas(T) static unsigned char buf[sizeof(T)];
  memset(buf, 0, sizeof buf);
  return reinterpret_cast<T*>(buf);
}

template<typename T, typename M>
static uint64_t ffi_offset(const T *object, const volatile M *member)
{
  return uint64_t(reinterpret_cast<const volatile char*>(member) -
                  reinterpret_cast<const volatile char*>(object));
}

/* Lowest set bit and number of set bits in an object's bytes (x86_64:
   little-endian, so bit i of byte b is bit 8*b+i). */
static void ffi_scan_bits(const void *object, size_t size, uint64_t *lowest,
                          uint64_t *count)
{
  const unsigned char *b= static_cast<const unsigned char*>(object);
  *lowest= UINT64_MAX;
  *count= 0;
  for (size_t i= 0; i < size * 8; i++)
    if (b[i / 8] >> (i % 8) & 1)
    {
      if (*lowest == UINT64_MAX)
        *lowest= i;
      ++*count;
    }
}

#define FFI_PUSH(k, t, m, v) do {                              \
    if (n < cap) { out[n].kind= k; out[n].ty= t; out[n].member= m; \
                   out[n].value= uint64_t(v); }                \
    n++; } while (0)

#endif
