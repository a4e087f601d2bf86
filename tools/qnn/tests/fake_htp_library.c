// A stand-in for Qualcomm's libQnnHtp.so, for testing the ABI adapter without
// Qualcomm binaries. It exposes one provider whose function table has the QNN
// v2 prefix the adapter relies on, reports the build id given in
// FAKE_QAIRT_BUILD_ID, and records the HTP custom config that deviceCreate
// and deviceSetConfig receive, read in the QAIRT >= 2.47 layout (union at
// offset 8).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t QnnError;
typedef struct {
  uint32_t option;
  void* value;
} DeviceConfig;
typedef struct {
  uint32_t option;
  uint32_t padding;
  uint32_t first_payload_word;  // socModel, or arch.deviceId
  uint32_t second_payload_word;
} HtpCustomConfigNew;

enum { kTableSlots = 64, kHeaderWords = 5 };
enum {
  kSlotBackendGetBuildId = 4,
  kSlotDeviceCreate = 40,
  kSlotDeviceSetConfig = 41
};

static void* provider[kHeaderWords + kTableSlots];
static const void* providers[1] = {provider};
static int configs_seen;
static int platform_info_seen;
static uint32_t last_option, last_first_word, last_second_word;

static QnnError GetBuildId(const char** id) {
  const char* value = getenv("FAKE_QAIRT_BUILD_ID");
  *id = value ? value : "v2.51.0.0";
  return 0;
}

static void Record(const DeviceConfig** config) {
  for (int i = 0; config != NULL && config[i] != NULL; ++i) {
    ++configs_seen;
    if (config[i]->option == 1) {
      ++platform_info_seen;
      continue;
    }
    const HtpCustomConfigNew* htp = (const HtpCustomConfigNew*)config[i]->value;
    last_option = htp->option;
    last_first_word = htp->first_payload_word;
    last_second_word = htp->second_payload_word;
  }
}

static QnnError DeviceCreate(void* logger, const DeviceConfig** config,
                             void** device) {
  (void)logger;
  Record(config);
  *device = (void*)0x1;
  return 0;
}

static QnnError DeviceSetConfig(void* device, const DeviceConfig** config) {
  (void)device;
  Record(config);
  return 0;
}

static QnnError Unused(void) { return 1; }

__attribute__((visibility("default"))) QnnError QnnInterface_getProviders(
    const void*** out, uint32_t* count) {
  for (int slot = 0; slot < kTableSlots; ++slot) {
    provider[kHeaderWords + slot] = (void*)&Unused;
  }
  provider[kHeaderWords + kSlotBackendGetBuildId] = (void*)&GetBuildId;
  provider[kHeaderWords + kSlotDeviceCreate] = (void*)&DeviceCreate;
  provider[kHeaderWords + kSlotDeviceSetConfig] = (void*)&DeviceSetConfig;
  *out = providers;
  *count = 1;
  return 0;
}

// For the test: what the last custom config looked like, as >= 2.47 reads it.
__attribute__((visibility("default"))) void FakeLastConfig(uint32_t* values) {
  values[0] = (uint32_t)configs_seen;
  values[1] = (uint32_t)platform_info_seen;
  values[2] = last_option;
  values[3] = last_first_word;
  values[4] = last_second_word;
}
