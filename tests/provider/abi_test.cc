// The library's binary interface: what it exports and how it answers version requests.
#include <dlfcn.h>

#include <cstdio>
#include <memory>
#include <set>
#include <sstream>

#include "tests/provider/provider_test_util.h"

namespace geon::provider_test {
namespace {

struct DlHandle {
  void* h = dlopen(GEON_PROVIDER_PATH, RTLD_LOCAL | RTLD_NOW);
  ~DlHandle() {
    if (h) dlclose(h);
  }
};

TEST(ProviderAbi, ExportsOnlyGeonGetApi) {
  const std::string cmd = std::string("nm -D --defined-only '") + GEON_PROVIDER_PATH + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::set<std::string> symbols;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe.get())) {
    std::istringstream fields(line);
    std::string address, type, name;
    if (fields >> address >> type >> name) symbols.insert(name);
  }
  EXPECT_EQ(symbols, std::set<std::string>{"geon_get_api"});
}

TEST(ProviderAbi, VersionsUpToTheLibrarysAreGrantedAndZeroOrNewerAreRefusedWithAMessage) {
  DlHandle lib;
  ASSERT_NE(lib.h, nullptr) << dlerror();
  auto get = reinterpret_cast<GeonGetApiFn>(dlsym(lib.h, "geon_get_api"));
  ASSERT_NE(get, nullptr);

  const char* error = "unset";
  const GeonApi* api = get(1, &error);
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(error, nullptr);
  EXPECT_GE(api->version, 1u);
  EXPECT_NE(std::string(api->library_version()).find("cpu.generic"), std::string::npos);

  // A host built against an older header gets a table whose prefix is that version's.
  ASSERT_NE(get(GEON_API_VERSION, nullptr), nullptr);
  for (uint32_t asked : {0u, GEON_API_VERSION + 1, 1000u}) {
    error = nullptr;
    EXPECT_EQ(get(asked, &error), nullptr) << "version " << asked;
    ASSERT_NE(error, nullptr);
    EXPECT_NE(std::string(error).find("asked for version " + std::to_string(asked)),
              std::string::npos)
        << error;
  }
  EXPECT_EQ(get(GEON_API_VERSION + 1, nullptr), nullptr);  // a null error pointer is allowed
}

TEST(ProviderAbi, WrapperThrowsTheRefusalAsVersionMismatch) {
  try {
    api::Library lib(GEON_PROVIDER_PATH, GEON_API_VERSION + 1);
    FAIL() << "version " << GEON_API_VERSION + 1 << " was granted";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_VERSION_MISMATCH);
    EXPECT_NE(std::string(e.what()).find("version " + std::to_string(GEON_API_VERSION + 1)),
              std::string::npos)
        << e.what();
  }
}

TEST(ProviderAbi, WrapperReportsAMissingLibraryAsNotFound) {
  try {
    api::Library lib("/nonexistent/libgeon_provider.so");
    FAIL() << "loaded a missing library";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.code(), GEON_NOT_FOUND);
    EXPECT_NE(std::string(e.what()).find("/nonexistent"), std::string::npos);
  }
}

TEST(ProviderAbi, DtypeHelpersFollowOnnxNumbering) {
  EXPECT_EQ(api::dtype_name(1), "float");
  EXPECT_EQ(api::dtype_name(7), "int64");
  EXPECT_EQ(api::dtype_name(22), "int4");
  EXPECT_EQ(api::dtype_name(99), "dtype(99)");
  EXPECT_EQ(api::dtype_from_name("bfloat16"), 16);
  EXPECT_EQ(api::dtype_from_name("nonsense"), 0);
  EXPECT_EQ(api::dtype_size(11), 8u);
  EXPECT_EQ(api::dtype_size(22), 0u);  // packed
  EXPECT_EQ(api::dtype_bytes_for(22, 3), 2u);
  EXPECT_EQ(api::dtype_bytes_for(26, 5), 2u);
  EXPECT_EQ(api::dtype_bytes_for(15, 2), 32u);
}

}  // namespace
}  // namespace geon::provider_test
