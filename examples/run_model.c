/* Runs an ONNX model from plain C99: link libgeon_provider.so (CMake: geon::geon; pkg-config:
 * geon), get geon's function table, create a session, feed every input, print every output.
 * Usage: run_model_c MODEL.onnx   (e.g. models/mlp.onnx). Symbolic dims ("batch") are set to
 * 2, and input element i is ((i % 17) - 8) / 8, so that anyone can rebuild the same inputs. */
#include <stdio.h>
#include <stdlib.h>

#include "geon/geon.h"

/* Prints the status's message and frees it; returns 1 on failure, 0 on success. */
static int failed(const GeonApi* api, GeonStatus* status, const char* what) {
  if (!status) return 0;
  fprintf(stderr, "%s: %s\n", what, api->status_message(status));
  api->release_status(status);
  return 1;
}

static void print_shape(const char* kind, const char* name, int32_t rank, const int64_t* shape) {
  printf("%s %s: [", kind, name);
  for (int32_t d = 0; d < rank; ++d) printf(d ? ", %lld" : "%lld", (long long)shape[d]);
  printf("]\n");
}

static int run_model(const char* model_path) {
  /* 1. The function table. The library implements this header's version or a newer one. */
  const char* refusal = NULL;
  const GeonApi* api = geon_get_api(GEON_API_VERSION, &refusal);
  if (!api) {
    fprintf(stderr, "geon_get_api: %s\n", refusal);
    return 1;
  }
  printf("geon %s\n", api->library_version());

  /* 2. A session over the whole model, with default options (NULL). */
  GeonSession* session = NULL;
  if (failed(api, api->create_session(model_path, NULL, &session), "create_session")) return 1;

  /* 3. One float tensor per input: the declared shape, with 2 for every symbolic dim. */
  size_t n_inputs = api->session_input_count(session);
  const char** names = calloc(n_inputs, sizeof *names);
  GeonTensor* inputs = calloc(n_inputs, sizeof *inputs);
  int64_t(*shapes)[8] = calloc(n_inputs, sizeof *shapes);
  int status = 0;
  for (size_t i = 0; i < n_inputs && !status; ++i) {
    GeonValueInfo info;
    status = failed(api, api->session_input_info(session, i, &info), "session_input_info");
    if (status) break;
    if (info.dtype != 1 || info.rank < 0 || info.rank > 8) {
      fprintf(stderr, "input %s: this example feeds float tensors of rank <= 8\n", info.name);
      status = 1;
      break;
    }
    size_t count = 1;
    for (int32_t d = 0; d < info.rank; ++d) {
      shapes[i][d] = info.dims[d] < 0 ? 2 : info.dims[d];
      count *= (size_t)shapes[i][d];
    }
    float* data = malloc(count * sizeof *data);
    for (size_t k = 0; k < count; ++k) data[k] = (float)((int)(k % 17) - 8) / 8.0f;
    names[i] = info.name;
    inputs[i] = (GeonTensor){.dtype = 1,
                             .rank = info.rank,
                             .shape = shapes[i],
                             .data = data,
                             .bytes = count * sizeof *data};
    print_shape("input", info.name, info.rank, shapes[i]);
  }

  /* 4. Run. NULL output names ask for every output; the provider allocates them in result. */
  GeonResult* result = NULL;
  if (!status)
    status = failed(api, api->run(session, names, inputs, n_inputs, NULL, 0, NULL, &result), "run");

  /* 5. Print the outputs: a header line, then the values (float outputs only). */
  for (size_t i = 0; !status && i < api->result_count(result); ++i) {
    GeonTensor out;
    if ((status = failed(api, api->result_tensor(result, i, &out), "result_tensor"))) break;
    print_shape("output", api->result_name(result, i), out.rank, out.shape);
    if (out.dtype != 1) continue;
    const float* v = out.data;
    for (size_t k = 0; k < out.bytes / sizeof(float); ++k) printf(k ? " %.9g" : "%.9g", v[k]);
    printf("\n");
  }

  /* 6. Release everything: result, session, our input buffers. */
  api->release_result(result);
  api->release_session(session);
  for (size_t i = 0; i < n_inputs; ++i) free(inputs[i].data);
  free(shapes);
  free(inputs);
  free(names);
  return status;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.onnx\n", argv[0]);
    return 2;
  }
  return run_model(argv[1]);
}
