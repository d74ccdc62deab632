/* geon's C ABI. libgeon_provider.so exports one symbol, geon_get_api(), which returns a
 * versioned table of function pointers; everything else is reached through it. The table is
 * append-only: a host built against an older header keeps working with a newer library.
 *
 * Conventions:
 * - C99 types, opaque handles. Every fallible call returns a GeonStatus*: NULL is success;
 *   otherwise the caller owns it and frees it with release_status(). Messages name the model
 *   node, op, input and reason where there is one. No C++ exception crosses this boundary.
 * - Strings returned through `char**` are owned by the caller (free with release_string()).
 *   `const char*` returned by accessors live as long as the handle they came from.
 * - Thread-safety is stated per function. "any" = may be called concurrently on the same
 *   handle; "exclusive" = the caller must not use the handle from another thread meanwhile.
 *   Handles never depend on thread-local state, so any call may come from any thread.
 * - Handles (GeonOptions*, GeonSession*, GeonResult*, GeonModel*, GeonCapability*) are opaque
 *   values, not addresses: the library looks each one up in a table of live handles of its
 *   type. A NULL, released, or never-issued handle, or a handle of another type, is refused:
 *   functions returning a status return GEON_INVALID_ARGUMENT ("argument 'session': the
 *   session handle was released (by release_session)"); accessors give their neutral answer
 *   (0, "", -1 or SIZE_MAX, as stated with them); release functions do nothing, so releasing
 *   twice is harmless. Handle values are never reused within a process, so a released handle
 *   never comes to mean a newer object. Every NULL pointer argument that is not a handle (an
 *   out-pointer, a name) is refused with GEON_INVALID_ARGUMENT too.
 *   Statuses and returned strings are not handles: they are plain caller-owned objects, and
 *   releasing one twice is the caller's bug, as with free().
 */
#ifndef GEON_GEON_H_
#define GEON_GEON_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version this header describes. Version N's table is a prefix of version N+1's. */
#define GEON_API_VERSION 4u

typedef enum GeonErrorCode {
  GEON_OK = 0,
  GEON_INVALID_ARGUMENT = 1,   /* a bad argument from the caller (null handle, wrong shape) */
  GEON_INVALID_MODEL = 2,      /* the model is malformed */
  GEON_UNSUPPORTED = 3,        /* well-formed but not supported (op, dtype, option) */
  GEON_NOT_FOUND = 4,          /* a file, input or output name that does not exist */
  GEON_RESOURCE_EXHAUSTED = 5, /* memory, or the arena limit */
  GEON_INTERNAL = 6,           /* a bug in geon: please report it */
  GEON_VERSION_MISMATCH = 7    /* the host asked for an API version this library lacks */
} GeonErrorCode;

/* Element types, numbered as ONNX's TensorProto.DataType (1 = float, 7 = int64, ...). */
typedef int32_t GeonDType;

/* A tensor the caller describes: dense, row-major, on the host. For inputs `data` is read
 * in place (never copied, never modified) and must stay valid during the call. For outputs,
 * data == NULL asks the provider to allocate; otherwise the provider writes there, and
 * `bytes` must be at least the output's size. Scalars have rank 0 and shape may be NULL. */
typedef struct GeonTensor {
  GeonDType dtype;
  int32_t rank;
  const int64_t* shape;
  void* data;
  uint64_t bytes;
} GeonTensor;

/* String tensors (dtype 8): `data` points to one GeonString per element, row-major, and
 * `bytes` counts those handles (16 per element); the text is UTF-8, not NUL-terminated, and
 * may hold any byte. Inputs' text is read in place during the call. String outputs are always
 * returned in the GeonResult, which owns their text (caller memory is refused for them). */
typedef struct GeonString {
  const char* data; /* may be NULL when size is 0 */
  uint64_t size;
} GeonString;

/* A value of sequence, optional or map type (API version 3; maps from version 4; run_values,
 * result_value). count is always the number of tensors in `tensors`. kind:
 *   GEON_VALUE_TENSOR         one tensor: tensors[0], count 1 (also an optional that holds one)
 *   GEON_VALUE_SEQUENCE       tensors[0 .. count), count may be 0 (also an optional that holds
 *                             one)
 *   GEON_VALUE_NONE           an optional without a value: count 0
 *   GEON_VALUE_MAP            a map(K, V) of ai.onnx.ml (version 4): count 2, tensors[0] its keys
 *                             and tensors[1] its values, both 1-D of the same length
 *   GEON_VALUE_MAP_SEQUENCE   a seq(map(K, V)) (version 4): two tensors per map, keys then
 *                             values, so count is twice the number of maps
 * Every tensor is dense, row-major, on the host, and of the element type the model declares
 * (for a map's keys: its key type). */
typedef enum GeonValueKind {
  GEON_VALUE_TENSOR = 0,
  GEON_VALUE_SEQUENCE = 1,
  GEON_VALUE_NONE = 2,
  GEON_VALUE_MAP = 3,
  GEON_VALUE_MAP_SEQUENCE = 4
} GeonValueKind;

typedef struct GeonValue {
  int32_t kind; /* a GeonValueKind */
  uint64_t count;
  const GeonTensor* tensors;
} GeonValue;

/* An input or output as the model declares it. dims[i] is the length, or -1 when it is only
 * known at run time; dim_names[i] is then the symbol ("batch") or "" when it has none.
 * rank is -1 when nothing is known about the shape. */
typedef struct GeonValueInfo {
  const char* name;
  GeonDType dtype;
  int32_t rank;
  const int64_t* dims;
  const char* const* dim_names;
} GeonValueInfo;

typedef struct GeonStatus GeonStatus;
typedef struct GeonOptions GeonOptions;
typedef struct GeonSession GeonSession;
typedef struct GeonResult GeonResult;
typedef struct GeonModel GeonModel;
typedef struct GeonCapability GeonCapability;

typedef struct GeonApi {
  /* GEON_API_VERSION of the library (>= the version asked for). */
  uint32_t version;
  /* "0.1.0" and the kernel sets compiled in. Thread-safety: any. */
  const char* (*library_version)(void);

  /* --- status ------------------------------------------------------------------------ */
  GeonErrorCode (*status_code)(const GeonStatus* s);  /* GEON_OK for NULL */
  const char* (*status_message)(const GeonStatus* s); /* "" for NULL */
  void (*release_status)(GeonStatus* s);              /* NULL is fine */
  void (*release_string)(char* s);                    /* NULL is fine */

  /* --- options ------------------------------------------------------------------------
   * Keys (values are strings):
   *   "devices"             kernel sets in priority order, comma-separated:
   *                         "cpu.dnnl,cpu.generic" (default), "cuda,cpu.dnnl,cpu.generic";
   *                         "cpu" = "cpu.dnnl,cpu.generic". An unavailable set is skipped,
   *                         and its reason appears in the placement report.
   *   "intra_op_threads"    engine threads of this session, counting the calling thread
   *                         (default 0 = the process-wide engine pool shared by sessions, one
   *                         thread per hardware thread or GEON_THREADS); n > 0 gives the
   *                         session a pool of its own, whose threads sleep between runs;
   *                         concurrent runs of one session take turns on it. It is the
   *                         session's only scheduler: oneDNN kernels (cpu.dnnl) run inside its
   *                         jobs. As many threads read the model's weights (16 MB or more)
   *                         while the session is made
   *   "optimization_level"  0 = none, 1 = constant folding, 2 = folding and the fusion passes
   *                         of core/passes/pipeline.cc (default 2)
   *   "strict"              "1": session creation fails when a node cannot run on the first
   *                         device of the list, instead of falling back to the next
   *   "profiling"           "1": record one event per node; end_profiling() returns them
   *   "log_level"           "error" (default), "warning", "info", "verbose" (to stderr)
   *   "arena_limit_bytes"   fail a run whose working memory exceeds this (0 = no limit): the
   *                         arenas of every device, If/Loop/Scan bodies and loop state, and
   *                         run-time allocations (not a kernel's own scratch); the status
   *                         gives the bytes needed and allowed
   *   "poison_freed"        "1": fill every arena region with 0xFF when its value dies
   *                         (a debug mode: any overlap of live tensors shows in results)
   * An unknown key or a malformed value is GEON_INVALID_ARGUMENT.
   * Thread-safety: exclusive. Options are copied into sessions at creation. */
  GeonStatus* (*create_options)(GeonOptions** out);
  GeonStatus* (*set_option)(GeonOptions* o, const char* key, const char* value);
  void (*release_options)(GeonOptions* o);

  /* --- sessions: the whole model run by the provider ------------------------------------
   * options may be NULL (defaults). base_dir is where external data files are looked up for
   * a model given as bytes (NULL: such a model is refused). Thread-safety: any. */
  GeonStatus* (*create_session)(const char* model_path, const GeonOptions* options,
                                GeonSession** out);
  GeonStatus* (*create_session_from_bytes)(const void* bytes, size_t size, const char* base_dir,
                                           const GeonOptions* options, GeonSession** out);
  /* Thread-safety: any. Calls on s that are in flight (runs, reports) finish normally: each
   * holds the session until it returns, and the last one frees it. Calls that begin after
   * the release are refused ("the session handle was released"). Results and the
   * GeonValueInfo pointers of the session are separate: results stay valid after their
   * session is released; value infos do not. */
  void (*release_session)(GeonSession* s);

  /* Inputs are the graph inputs without a default (initializer); inputs with a default come
   * after them and may be fed to override it. Thread-safety: any. */
  size_t (*session_input_count)(const GeonSession* s);
  size_t (*session_output_count)(const GeonSession* s);
  /* The info's pointers live as long as the session. */
  GeonStatus* (*session_input_info)(const GeonSession* s, size_t i, GeonValueInfo* out);
  GeonStatus* (*session_output_info)(const GeonSession* s, size_t i, GeonValueInfo* out);

  /* Runs the model. inputs[i] feeds the input named input_names[i] (every input without a
   * default must be fed). The outputs named output_names (NULL with n_outputs == 0: all, in
   * model order) are written: when `outputs` is non-NULL and outputs[i].data non-NULL, into
   * that caller memory (its dtype and shape must equal the output's); the others are
   * allocated in *result (which may be NULL only when every output has caller memory).
   * On failure nothing is returned in *result.
   * When non-NULL, `outputs` has one entry per requested output (n_outputs, or the
   * model's output count when n_outputs == 0); entries with data == NULL are allocated.
   * The library only reads the `inputs` and `outputs` arrays themselves (it writes into the
   * memory outputs[i].data points to, never into the GeonTensor entries).
   * Thread-safety: any — several threads may run one session at once with their own
   * inputs; each run has its own working memory. */
  GeonStatus* (*run)(GeonSession* s, const char* const* input_names, const GeonTensor* inputs,
                     size_t n_inputs, const char* const* output_names, size_t n_outputs,
                     GeonTensor* outputs, GeonResult** result);

  /* The outputs a run allocated, in the order requested. The tensor's shape and data live as
   * long as the result, which owns them: it stays valid after its session is released.
   * Thread-safety: any (read-only); release_result while another thread reads the result's
   * tensors is the caller's bug (the data pointers it handed out dangle). */
  size_t (*result_count)(const GeonResult* r);
  GeonStatus* (*result_tensor)(const GeonResult* r, size_t i, GeonTensor* out);
  const char* (*result_name)(const GeonResult* r, size_t i);
  void (*release_result)(GeonResult* r);

  /* The placement report as JSON: per node its kernel set and why (refusals of the sets
   * before it), the subgraphs, the transfers between devices, and the memory plan's peak
   * bytes per device ("memory": {"<device>": {"peak_bytes": N, ...}}).
   * Thread-safety: any. */
  GeonStatus* (*placement_report)(const GeonSession* s, char** json);
  /* The profile as Chrome-trace JSON ({"traceEvents": [...]}, one complete event per node
   * run, with its op, kernel set and input shapes) of the runs since creation or the last
   * call; empty events when profiling is off. Thread-safety: any. */
  GeonStatus* (*end_profiling)(GeonSession* s, char** json);
  /* The imported graph as text: values with dtypes and axes, nodes. Thread-safety: any. */
  GeonStatus* (*session_graph_dump)(const GeonSession* s, char** text);

  /* --- the provider contract (ORT style): capability, compile, compute -------------------
   * A host that runs some nodes itself loads the model, asks which nodes the provider
   * claims, compiles each claimed subgraph into a session (whose inputs and outputs are the
   * subgraph's boundary values, by their model names), and runs it with run(). */
  GeonStatus* (*load_model)(const char* model_path, GeonModel** out);
  GeonStatus* (*load_model_from_bytes)(const void* bytes, size_t size, const char* base_dir,
                                       GeonModel** out);
  void (*release_model)(GeonModel* m);
  /* Node count and each node's name ("" when unnamed) and op, in topological order. The op
   * is "domain.op" for nodes outside the default ONNX domain. Node indices are those of the
   * imported graph (after function expansion and the importer's constant folding).
   * Accessors like these answer 0, "", -1 or SIZE_MAX for a NULL handle or an index out of
   * range, rather than failing. */
  size_t (*model_node_count)(const GeonModel* m);
  const char* (*model_node_name)(const GeonModel* m, size_t node);
  const char* (*model_node_op)(const GeonModel* m, size_t node);

  /* Which nodes the provider claims under these options ("devices", "strict"; with strict,
   * only the nodes the first available kernel set can run are claimed). */
  GeonStatus* (*get_capability)(const GeonModel* m, const GeonOptions* options,
                                GeonCapability** out);
  void (*release_capability)(GeonCapability* c);
  size_t (*capability_subgraph_count)(const GeonCapability* c);
  /* The kernel set a subgraph runs on ("cpu.dnnl", ...). */
  const char* (*capability_subgraph_set)(const GeonCapability* c, size_t subgraph);
  /* The nodes of a subgraph (indices into the model's nodes), in execution order. */
  size_t (*capability_subgraph_node_count)(const GeonCapability* c, size_t subgraph);
  size_t (*capability_subgraph_node)(const GeonCapability* c, size_t subgraph, size_t k);
  /* Per model node: the subgraph claiming it, or -1 when unclaimed, and then why ("" when
   * claimed). */
  int64_t (*capability_node_subgraph)(const GeonCapability* c, size_t node);
  const char* (*capability_node_reason)(const GeonCapability* c, size_t node);

  /* Compiles one claimed subgraph into a session over its boundary values. */
  GeonStatus* (*compile)(const GeonModel* m, const GeonCapability* c, size_t subgraph,
                         const GeonOptions* options, GeonSession** out);

  /* --- appended after the first release of version 1 -------------------------------------- */
  /* 1 when session input i has a default (an initializer a run may override), else 0 (also
   * for a bad index or a NULL session). Thread-safety: any. */
  int (*session_input_has_default)(const GeonSession* s, size_t i);

  /* --- version 2 -------------------------------------------------------------------------- */
  /* The model's own description as JSON: {"producer_name", "producer_version", "domain",
   * "model_version", "description" (the model's doc_string), "graph_name",
   * "graph_description" (the graph's doc_string), "ir_version", "opset_imports":
   * {domain: version} as declared, "custom_metadata": {key: value} from metadata_props}.
   * Strings are "" and numbers 0 where the model sets none, but "model_version" is null
   * then (0 is a version). Sessions made by compile() report none of it.
   * Thread-safety: any. */
  GeonStatus* (*session_model_metadata)(const GeonSession* s, char** json);

  /* --- version 3: sequences and optionals ------------------------------------------------ */
  /* The declared type of input / output i in ONNX's notation: "tensor(float)",
   * "seq(tensor(int64))", "optional(tensor(float))", "optional(seq(tensor(float)))".
   * Thread-safety: any. */
  GeonStatus* (*session_input_type)(const GeonSession* s, size_t i, char** type);
  GeonStatus* (*session_output_type)(const GeonSession* s, size_t i, char** type);
  /* run() for models with sequence or optional inputs or outputs: inputs[i] feeds the input
   * named input_names[i] (a tensor input takes GEON_VALUE_TENSOR; an optional input may be
   * GEON_VALUE_NONE); every requested output is allocated in *result. The tensors' data are
   * read in place during the call. Thread-safety: any. */
  GeonStatus* (*run_values)(GeonSession* s, const char* const* input_names, const GeonValue* inputs,
                            size_t n_inputs, const char* const* output_names, size_t n_outputs,
                            GeonResult** result);
  /* Output i of a result as a value (tensor outputs too). The tensors array and the data live
   * as long as the result. result_tensor() refuses sequence and optional outputs.
   * Thread-safety: any (read-only). */
  GeonStatus* (*result_value)(const GeonResult* r, size_t i, GeonValue* out);

  /* --- version 4: maps ---------------------------------------------------------------------- */
  /* No new functions: run_values and result_value take and give GEON_VALUE_MAP and
   * GEON_VALUE_MAP_SEQUENCE, and session_input_type / session_output_type name
   * "map(int64,tensor(float))" and "seq(map(string,tensor(float)))". */
} GeonApi;

/* The only exported symbol. Returns the table when this library implements `version` (or
 * newer); otherwise NULL, with *error (when error is non-NULL) set to a message saying which
 * version the library has and which was asked for ("libgeon_provider implements C API
 * version 2; the host asked for version 3"). The text is owned by the library and stays
 * valid until the same thread's next refused call. On success *error is set to NULL. */
typedef const GeonApi* (*GeonGetApiFn)(uint32_t version, const char** error);
#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
const GeonApi*
geon_get_api(uint32_t version, const char** error);

#ifdef __cplusplus
}
#endif

#endif /* GEON_GEON_H_ */
