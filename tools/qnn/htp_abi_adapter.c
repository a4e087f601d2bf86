// A stand-in libQnnHtp.so that lets ExecuTorch's QNN code (built against the
// QAIRT 2.37 headers) drive a QAIRT >= 2.47 HTP library.
//
// Why: from QAIRT 2.47, QnnHtpDevice_CustomConfig_t's union gained a pointer
// member, so the union moved from offset 4 to offset 8. ExecuTorch still writes
// the SoC model at offset 4, and the newer library then reads SoC model 0 and
// fails to create the device (error 14001). Passing the PLATFORM_INFO device
// config to the newer library crashes it.
//
// How: ExecuTorch dlopen()s "libQnnHtp.so" (found through LD_LIBRARY_PATH) and
// calls QnnInterface_getProviders. This library answers, loads the real one
// from "libQnnHtp.real.so" beside itself, and hands back copies of its
// providers whose deviceCreate/deviceSetConfig repack the HTP custom configs
// into the new layout and drop PLATFORM_INFO. With a real library older than
// 2.47 (read from its build id) everything passes through untouched.
//
// No Qualcomm header is used: the few ABI facts needed are spelled out below.
// QNN keeps the v2 function table append-only, so the slots ExecuTorch calls
// (built against 2.37) are the same in every newer library; the table's length
// is found by scanning, since only its prefix is known.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t QnnError;  // Qnn_ErrorHandle_t
enum { kQnnSuccess = 0, kQnnCommonErrorGeneral = 1000 };
enum { kDeviceOptionCustom = 0, kDeviceOptionPlatformInfo = 1 };
// First QAIRT release with the 8-byte-aligned HTP custom-config union.
enum { kLayoutChangeMajor = 2, kLayoutChangeMinor = 47 };

// QnnDevice_Config_t: a 32-bit option, then a pointer-sized union.
typedef struct {
  uint32_t option;
  void* value;  // QnnDevice_CustomConfig_t or QnnDevice_PlatformInfo_t*
} DeviceConfig;

// QnnHtpDevice_CustomConfig_t as ExecuTorch writes it (2.37: union at 4, 8
// bytes long) and as >= 2.47 reads it (union at 8, now holding a pointer).
typedef struct {
  uint32_t option;
  unsigned char payload[8];
} HtpCustomConfigOld;
typedef struct {
  uint32_t option;
  uint32_t padding;
  unsigned char payload[8];
} HtpCustomConfigNew;

typedef QnnError (*DeviceCreateFn)(void* logger, const DeviceConfig** config,
                                   void** device);
typedef QnnError (*DeviceSetConfigFn)(void* device,
                                      const DeviceConfig** config);
typedef QnnError (*GetProvidersFn)(const void*** providers,
                                   uint32_t* num_providers);
typedef QnnError (*GetBuildIdFn)(const char** id);

enum { kMaxProviders = 8, kMaxConfigs = 32, kMaxTableWords = 512 };
// QnnInterface_t: backend id, provider name and a 24-byte API version take
// five words; the function table follows. Slots are counted from its start.
enum { kHeaderWords = 5 };
enum {
  kSlotBackendGetBuildId = 4,
  kSlotDeviceCreate = 40,
  kSlotDeviceSetConfig = 41
};

static void* real_library;
static DeviceCreateFn real_device_create;
static DeviceSetConfigFn real_device_set_config;
static const void* provider_copies[kMaxProviders];
static void* provider_storage[kMaxProviders][kMaxTableWords];

static void Fail(const char* what) {
  fprintf(stderr, "llm_ondevice QNN ABI adapter: %s\n", what);
}

// Rewrites one NULL-terminated config list into `out` (new layout, no
// PLATFORM_INFO); `storage` holds the rewritten entries.
static int Repack(const DeviceConfig** in, const DeviceConfig** out,
                  DeviceConfig* device_storage,
                  HtpCustomConfigNew* htp_storage) {
  int n = 0;
  for (int i = 0; in != NULL && in[i] != NULL; ++i) {
    if (n + 1 >= kMaxConfigs) return -1;
    if (in[i]->option == kDeviceOptionPlatformInfo) continue;
    device_storage[n] = *in[i];
    if (in[i]->option == kDeviceOptionCustom && in[i]->value != NULL) {
      const HtpCustomConfigOld* old = (const HtpCustomConfigOld*)in[i]->value;
      memset(&htp_storage[n], 0, sizeof(htp_storage[n]));
      htp_storage[n].option = old->option;
      memcpy(htp_storage[n].payload, old->payload, sizeof(old->payload));
      device_storage[n].value = &htp_storage[n];
    }
    out[n] = &device_storage[n];
    ++n;
  }
  out[n] = NULL;
  return n;
}

static QnnError DeviceCreate(void* logger, const DeviceConfig** config,
                             void** device) {
  const DeviceConfig* list[kMaxConfigs];
  DeviceConfig device_storage[kMaxConfigs];
  HtpCustomConfigNew htp_storage[kMaxConfigs];
  if (Repack(config, list, device_storage, htp_storage) < 0) {
    Fail("too many device configs");
    return kQnnCommonErrorGeneral;
  }
  return real_device_create(logger, list, device);
}

static QnnError DeviceSetConfig(void* device, const DeviceConfig** config) {
  const DeviceConfig* list[kMaxConfigs];
  DeviceConfig device_storage[kMaxConfigs];
  HtpCustomConfigNew htp_storage[kMaxConfigs];
  if (Repack(config, list, device_storage, htp_storage) < 0) {
    Fail("too many device configs");
    return kQnnCommonErrorGeneral;
  }
  return real_device_set_config(device, list);
}

// True when `word` is NULL or points into the real library: the extent of a
// provider's function table, whatever its QAIRT version.
static int IsTableWord(void* word, const void* library_base) {
  Dl_info info;
  if (word == NULL) return 1;
  return dladdr(word, &info) != 0 && info.dli_fbase == library_base;
}

// Reads the real library's build id ("v2.51.0.251020..."): a wrong slot
// layout would not give back a version string, so this also vouches for it.
static int ReadVersion(void* const* table, int* major, int* minor) {
  GetBuildIdFn get_build_id =
      (GetBuildIdFn)table[kHeaderWords + kSlotBackendGetBuildId];
  const char* id = NULL;
  return get_build_id != NULL && get_build_id(&id) == kQnnSuccess &&
         id != NULL && sscanf(id, "v%d.%d", major, minor) == 2;
}

static int LoadRealLibrary(void) {
  Dl_info self;
  char path[4096];
  if (dladdr((void*)&LoadRealLibrary, &self) == 0 || self.dli_fname == NULL) {
    Fail("cannot find its own path");
    return 0;
  }
  const char* slash = strrchr(self.dli_fname, '/');
  int dir_length = slash ? (int)(slash - self.dli_fname) : 1;
  snprintf(path, sizeof(path), "%.*s/libQnnHtp.real.so", dir_length,
           slash ? self.dli_fname : ".");
  real_library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (real_library == NULL) {
    fprintf(stderr, "llm_ondevice QNN ABI adapter: cannot load %s: %s\n", path,
            dlerror());
    return 0;
  }
  return 1;
}

__attribute__((visibility("default"))) QnnError QnnInterface_getProviders(
    const void*** providers, uint32_t* num_providers) {
  static int loaded;
  static uint32_t count;
  if (!loaded) {
    if (!LoadRealLibrary()) return kQnnCommonErrorGeneral;
    GetProvidersFn real_get =
        (GetProvidersFn)dlsym(real_library, "QnnInterface_getProviders");
    const void** real_providers = NULL;
    if (real_get == NULL || real_get(&real_providers, &count) != kQnnSuccess) {
      Fail("the real library returned no providers");
      return kQnnCommonErrorGeneral;
    }
    if (count > kMaxProviders) count = kMaxProviders;
    Dl_info library;
    dladdr((void*)real_get, &library);
    for (uint32_t p = 0; p < count; ++p) {
      void* const* table = (void* const*)real_providers[p];
      // The header words are not function pointers; after them, copy the
      // table up to its end (the first word that does not point into the
      // real library). ExecuTorch reads no further than the 2.37 table.
      int words = 0;
      while (words < kMaxTableWords &&
             (words < kHeaderWords ||
              IsTableWord(table[words], library.dli_fbase))) {
        provider_storage[p][words] = table[words];
        ++words;
      }
      int major = 0, minor = 0;
      if (words <= kHeaderWords + kSlotDeviceSetConfig ||
          !ReadVersion(table, &major, &minor)) {
        Fail("the real library's interface table is not the QNN v2 layout");
        return kQnnCommonErrorGeneral;
      }
      int repack = major > kLayoutChangeMajor ||
                   (major == kLayoutChangeMajor && minor >= kLayoutChangeMinor);
      if (repack) {
        void** slots = &provider_storage[p][kHeaderWords];
        real_device_create = (DeviceCreateFn)slots[kSlotDeviceCreate];
        real_device_set_config = (DeviceSetConfigFn)slots[kSlotDeviceSetConfig];
        slots[kSlotDeviceCreate] = (void*)&DeviceCreate;
        slots[kSlotDeviceSetConfig] = (void*)&DeviceSetConfig;
      }
      provider_copies[p] = provider_storage[p];
    }
    loaded = 1;
  }
  *providers = provider_copies;
  *num_providers = count;
  return kQnnSuccess;
}
