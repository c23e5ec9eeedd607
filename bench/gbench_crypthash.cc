// Google Benchmark timing of one CryptHash library, the independent timer of
// bench/accuracy.sh: it dlopens the library named by --lib, hashes a message
// of --size bytes built by hashbench's rule (msg[i] = (i*131 + size) mod 256)
// and reports bytes per second, so the ratio to hashbench's MB/s can be
// printed side by side. Times are wall-clock (UseRealTime), as hashbench's
// and `openssl speed -elapsed` are, so the three agree on what a second is.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef int (*crypthash_fn)(int, const unsigned char *, unsigned long long,
                            unsigned char *);

static crypthash_fn g_hash;
static int g_bits = 256;

static void BM_CryptHash(benchmark::State &state)
{
    const size_t size = static_cast<size_t>(state.range(0));
    std::vector<unsigned char> msg(size), digest(g_bits / 8 + 64);
    for (size_t i = 0; i < size; i++)
        msg[i] = static_cast<unsigned char>((i * 131 + size) % 256);
    if (g_hash(g_bits, msg.data(), 8ULL * size, digest.data()) != 0) {
        state.SkipWithError("CryptHash returned non-zero");
        return;
    }
    for (auto _ : state) {
        int rc = g_hash(g_bits, msg.data(), 8ULL * size, digest.data());
        benchmark::DoNotOptimize(rc);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(size));
}

int main(int argc, char **argv)
{
    std::string lib;
    long size = 16384;
    std::vector<char *> rest;
    rest.push_back(argv[0]);
    for (int i = 1; i < argc; i++) {
        if (!std::strncmp(argv[i], "--lib=", 6))
            lib = argv[i] + 6;
        else if (!std::strncmp(argv[i], "--size=", 7))
            size = std::atol(argv[i] + 7);
        else if (!std::strncmp(argv[i], "--bits=", 7))
            g_bits = std::atoi(argv[i] + 7);
        else
            rest.push_back(argv[i]);
    }
    void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        std::fprintf(stderr, "gbench_crypthash: %s\n", dlerror());
        return 2;
    }
    g_hash = reinterpret_cast<crypthash_fn>(dlsym(h, "CryptHash"));
    if (!g_hash) {
        std::fprintf(stderr, "gbench_crypthash: %s has no CryptHash\n", lib.c_str());
        return 2;
    }
    benchmark::RegisterBenchmark("CryptHash", BM_CryptHash)->Arg(size)->UseRealTime();
    int n = static_cast<int>(rest.size());
    benchmark::Initialize(&n, rest.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
