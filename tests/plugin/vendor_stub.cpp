// Stands in for a vendor library: built as libcusparse.so.99 so that a test
// plugin can link "libcusparse" without the real one.
extern "C" __attribute__((visibility("default"))) int spmv_test_vendor_stub(void) { return 0; }
