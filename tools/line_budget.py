"""The engine's line budget per component (non-blank, non-comment lines), as the README shows it.

    python tools/line_budget.py          # print the table
    python tools/line_budget.py --check  # exit 1 when a component is over its limit, or a
                                         # function in tinyflow/ is over 60 lines

Limits sit a little above the counts they were set at: small enough to teach from is a feature,
so growing past one is a decision to make (raise it in the same commit, saying why), not drift.
"""
import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "tinyflow"
# The teaching core: what a reader follows from tf.Variable and an op's registration to one
# sess.run, optimisations aside (registry, symbol, graph, core passes, executor, Lua runtime,
# session, variables).  It must stand alone: Session(optimize=False) runs it by itself.
CORE = "teaching core (registry, symbol, graph, core passes, executor, Lua runtime, session)"
FRONT_END = "TF-1 surface (tinyflow/frontend: the rest)"
# component -> (file patterns under tinyflow/, line limit), in the layers' order, bottom up; a
# file counts in the first component naming it, the front end's is the rest.  The limits were
# set a little above the counts when the packages took the layers' shape (2026-11-26).
COMPONENTS = {
    # 2026-11-27: TF 1.15's string ops (tf.strings, tf.as_string, tf.string_split,
    # tf.decode_base64...): the ops computed in Python before the run, their kernels (RE2's
    # syntax read through Python's re, TF's printing of a tensor, web-safe base64) and the
    # TF-1 functions with TF's argument checks (and unicode_decode of a scalar string),
    # counted apart as TF's string_ops are; each op checks the attributes a graph document
    # may give it (test_hostile_op_inputs.py probes them)
    "string ops (ops/strings.py, ops/string_kernels.py, frontend/string_ops.py, "
    "tf_strings.py)": (
        ["ops/strings.py", "ops/string_kernels.py", "frontend/string_ops.py",
         "frontend/tf_strings.py"], 1030),
    # 2026-11-27 (nn17): tf.nn.ctc_beam_search_decoder's op, TF's CTC beam search step for step
    # computed in Python when it runs (a beam tree and TF's TopN as a heap, the children below a
    # full beam skipped with numpy, the beams made counted against the host's memory), counted
    # apart as the string kernels are
    "CTC beam search (ops/ctc_decoding.py)": (["ops/ctc_decoding.py"], 195),
    # 2026-11-27: TF 1.15's image files (tf.image / tf.io decode_png, encode_png, decode_bmp,
    # decode_image, is_jpeg, extract_jpeg_shape): PNG read and written and BMP read in numpy
    # and zlib, every length and allocation of an untrusted file checked; the ops pulled
    # before the run and the TF-1 functions, counted apart as TF's image codecs are
    "image files (ops/image_codecs.py, ops/image_codec_kernels.py, "
    "frontend/image_codecs.py)": (
        ["ops/image_codecs.py", "ops/image_codec_kernels.py", "frontend/image_codecs.py"],
        540),
    # 2026-11-27: TF 1.15's WAV files (tf.audio.decode_wav / encode_wav): 16-bit PCM read and
    # written in numpy as TF's wav_io, every header field and chunk of an untrusted file
    # checked; the ops pulled before the run, counted apart as the image files are
    "audio files (ops/audio.py, frontend/tf_audio.py)": (
        ["ops/audio.py", "frontend/tf_audio.py"], 230),
    # 2026-11-27: TF-1's linear algebra (tf.matrix_inverse, tf.cholesky, tf.svd, tf.qr,
    # tf.self_adjoint_eig..., tf.linalg's names, tf.norm's 2-norm): the ops with their gradient
    # rules, bodies and torch.linalg kernels (TF's gradient formulas of the decompositions)
    # and the TF-1 functions, counted apart as a family of its own; linalg_ops.py brought its
    # tf.norm and tf.einsum (161 lines) and tf_linalg.py its 22 from the front end's count;
    # 740 -> 1240: 2026-11-27: the rest of TF 1.15's tf.linalg (linalg_impl.py: lstsq, lu and
    # its readers, pinv, matrix_rank, normalize, expm, sqrtm, tridiagonal_solve / matmul):
    # five ops with their rules, bodies and kernels (LAPACK's gtsv by hand, Denman-Beavers)
    "linear algebra (ops/linalg.py, lua_ops/linalg/, frontend/linalg_ops.py, tf_linalg.py, "
    "linalg_impl.py)": (
        ["ops/linalg.py", "lua_ops/linalg/*", "frontend/linalg_ops.py",
         "frontend/tf_linalg.py", "frontend/linalg_impl.py"], 1240),
    # 2026-11-27: TF's lookup tables and string hashing: FarmHash's Fingerprint64 and TF's
    # Hash64 in pure Python (bit for bit), the table and hash ops pulled before the run (no
    # executor holds a string), tf.lookup's tables and initializers (vocabulary files read
    # under the memory check), tf.contrib.lookup's vocabulary tables, tf.strings' hashing and
    # the hashed, vocabulary-file, string vocabulary-list and weighted feature columns and
    # make_parse_example_spec, counted apart as TF's lookup_ops are
    "lookup tables and hashing (ops/hashing.py, ops/lookup_tables.py, lookup_ops.py...)": (
        ["ops/hashing.py", "ops/lookup_tables.py", "frontend/lookup_ops.py",
         "frontend/tf_lookup.py", "frontend/contrib/lookup.py", "frontend/string_hash_ops.py",
         "frontend/tf_strings.py", "frontend/feature_column_lookup.py",
         "frontend/tf_feature_column.py"], 975),
    # 2026-11-27: tf.lookup.experimental.MutableHashTable (tf.contrib.lookup's too) and
    # DenseHashTable (TF's bucket layout): insert, remove, lookup, export as Python ops on a
    # session's table, counted apart as TF keeps its mutable tables apart from the static ones
    # 350 -> 375: 2026-11-27: their contents in checkpoints (export_arrays / import_arrays,
    # TF's LookupTableImportV2, and the SAVEABLE_OBJECTS collection)
    "mutable hash tables (ops/mutable_tables.py, frontend/mutable_tables.py, "
    "lookup_experimental.py)": (
        ["ops/mutable_tables.py", "frontend/mutable_tables.py",
         "frontend/lookup_experimental.py"], 375),
    # 2026-11-27: tf.feature_column.crossed_column (TF's SparseCross hash, FingerprintCat64, as
    # a pulled op, and the column over it) and shared_embedding_columns (one variable through
    # a graph collection), counted apart as TF keeps sparse_cross and shared embeddings apart
    "feature crosses and shared embeddings (ops/feature_cross.py, frontend/feature_column_"
    "cross.py, feature_column_shared.py)": (
        ["ops/feature_cross.py", "frontend/feature_column_cross.py",
         "frontend/feature_column_shared.py"], 320),
    # 2026-11-27: TF-1's queue-based input pipelines (tf.FIFOQueue, tf.RandomShuffleQueue,
    # tf.train.batch / shuffle_batch, the input producers, Coordinator, QueueRunner) and the
    # readers of files (FixedLengthRecordReader..., tf.decode_raw): their ops and the front
    # end, counted apart as tf.data's pipeline is (880 -> 920: tf.train.LooperThread; 920 ->
    # 960: 2026-11-27: tf.TFRecordReader, its records decoded one at a time, and tf.read_file;
    # 960 -> 1020: 2026-11-27: tf.PaddingFIFOQueue (dequeue_many pads), tf.PriorityQueue,
    # tf.train.batch(dynamic_pad=True))
    "TF-1 queues and readers (ops/queue.py, frontend/queues.py, queue_runner.py, "
    "input_pipeline.py, readers.py)": (
        ["ops/queue.py", "frontend/queues.py", "frontend/queue_runner.py",
         "frontend/input_pipeline.py", "frontend/readers.py"], 1020),
    # 2026-11-27: the TFRecord / tf.train.Example input pipeline: tf.train.Example and its
    # parts with protobuf's wire format written and read by hand (no protobuf dependency;
    # untrusted bytes), tf.parse_example / parse_single_example and their feature
    # configurations, the parse op pulled before the run, tf.data.TFRecordDataset; apart, as
    # TF's parsing_ops and example protos are; with tf.decode_csv and tf.data.TextLineDataset,
    # and packed varints decoded by numpy, a large message checked against the free memory,
    # and tf.parse_single_sequence_example; 1080 -> 1150: tf.data.FixedLengthRecordDataset
    # (fixed records read in pieces past header and footer, TF's errors, the memory check);
    # 1150 -> 1165: 2026-11-27 (strdata18): decode_csv's defaults and record conversion as
    # functions tf.data.experimental.CsvDataset shares (its required dtypes, its words in
    # errors), a reader's record made an element by a method CsvDataset overrides
    "TFRecords and tf.train.Example (example_proto.py, parsing_ops.py, ops/parsing.py, "
    "data/readers.py)": (
        ["frontend/example_proto.py", "frontend/parsing_ops.py", "ops/parsing.py",
         "frontend/data/readers.py"], 1165),
    # 2026-11-27: tf.io's files and a tensor's bytes (matching_files' glob, write_file,
    # serialize_tensor / parse_tensor: TensorProto by hand, untrusted bytes checked), counted
    # apart as the TFRecord pipeline is
    "tf.io files and TensorProto bytes (ops/file_io.py, frontend/io_ops.py, tensor_proto.py)": (
        ["ops/file_io.py", "frontend/io_ops.py", "frontend/tensor_proto.py"], 315),
    # 2026-11-27: TF-1's sparse tensors (tf.SparseTensor, sparse_placeholder, tf.sparse.*,
    # embedding_lookup_sparse, safe_embedding_lookup_sparse): the session's composite fetches
    # and feeds, the sparse family's two ops (sized by the dense shape's value, indices checked
    # on the host), their kernels and the TF-1 functions composed of them (add, reorder,
    # transpose, fill_empty_rows...), counted apart as TF's sparse_ops are; 695 -> 750:
    # tf.sparse.softmax and tf.sparse.reshape (its -1, checks now or at run time), composed;
    # 750 -> 855: tf.edit_distance, an op of the family (TF's EditDistance: its shape and type
    # rules, body, and a kernel grouping the sequences and computing the distances a table row
    # at a time) and the TF-1 function with its static shape
    # 855 -> 1160: 2026-11-27: the rest of TF 1.15's tf.sparse (sparse_manip_ops.py: concat,
    # split, slice, expand_dims, eye, reset_shape, to_indicator, reduce_sum_sparse,
    # reduce_max(_sparse), maximum, minimum, mask), composed of sorts, masks and segments;
    # 1160 -> 1365: tf.sets (set_size, set_intersection / union / difference on dense and
    # sparse operands: two ops sized as they run, their kernels checking the operands, and
    # tf_sets.py)
    "sparse tensors (nnvm/composite.py, ops/sparse.py, lua_ops/sparse/, sparse_ops.py...)": (
        ["nnvm/composite.py", "ops/sparse.py", "lua_ops/sparse/*", "frontend/sparse_ops.py",
         "frontend/tf_sparse.py", "frontend/nn/sparse_lookup.py",
         "frontend/sparse_manip_ops.py", "frontend/tf_sets.py"], 1365),
    # 2026-11-27: TF's sparse gradients: tf.IndexedSlices and tf.gradients giving one for a
    # gather's or an embedding lookup's rows (FIndexedSlices), and the optimizers' sparse
    # updates (TF 1.15's _apply_sparse: ten ops, their bodies and row kernels), counted apart;
    # a sharded lookup's gradient cut into each shard's slices
    "sparse gradients: IndexedSlices, sparse optimizer updates (ops/sparse_updates.py, "
    "lua_ops/sparse_updates/, frontend/indexed_slices.py)": (
        ["ops/sparse_updates.py", "lua_ops/sparse_updates/*", "frontend/indexed_slices.py"],
        390),
    # issue 25: indexing with tensors (x[i] at a run-time index, slice bounds folded at bind,
    # tf.strided_slice with tensors) and TF's gather_nd, scatter_nd, tensor_scatter_nd_*,
    # reverse_sequence: their ops, bodies, checked kernels and TF-1 functions, counted apart
    # (460 -> 510: 2026-11-27: custom_gradient, broadcast_to, meshgrid..., cosine_decay, Ftrl
    # (TF-1 names programs use): tf.batch_gather and tf.dynamic_partition, composed of gathers,
    # and tf.dynamic_stitch; 510 -> 512: 2026-11-27: their gathers' gradients dense, as TF's
    # (gather_dense), now that a gather's is TF's IndexedSlices); 512 -> 540: 2026-11-27:
    # tensor_scatter_nd_max / min, their gradient TF's (ties share it)
    "indexing with tensors, gather_nd / scatter_nd / reverse_sequence": (
        ["ops/indexing.py", "lua_ops/indexing/*", "frontend/indexing_ops.py"], 540),
    # issue 25: loops as one node holding subgraphs (tf.while_loop, its gradient, TensorArray,
    # map_fn/scan/fold): the subgraph in the graph layer, its ops and bodies, the nested
    # executors, the TF-1 functions; counted apart so the teaching core stays the same size
    # (1150 -> 1620: dynamic_rnn's loop over time (copy-through, reverse_sequence) and
    # tf.contrib.seq2seq's decoders on tf.while_loop, counted apart from the unrolled RNNs;
    # 1620 -> 1640: a loop variable carried through the body without per-iteration copies;
    # 1640 -> 1685: the gradient of a cond with side effects (an if over its branches'
    # gradient subgraphs, the writes left out), and each subgraph's arity for LoadJSON;
    # 1685 -> 1960: a loop variable whose shape_invariants let its shape vary, the subgraphs
    # bound again per shapes it takes, forward and backward; a dynamic_size TensorArray
    # growing in a loop at indices found at run time: two loop variables, the ops growing it
    # and stacking its rows, their gradients and kernels; 1960 -> 2145: a loop's backward
    # reads the intermediates its forward kept (TKeep) instead of computing the body again,
    # skips the gradients nothing reads or that stay zero, and a loop variable goes straight
    # into the body's input buffer: dynamic_rnn's loop 1.44x -> 1.09x the unrolled graph's
    # CPU time per step, benchmarks/dynamic_rnn.py; 2145 -> 2215: 2026-11-27: tf.nn.raw_rnn, the
    # loop_fn protocol on tf.while_loop and dynamic-size TensorArrays, beside dynamic_rnn's loop;
    # 2215 -> 2235 (the crf helper's dtype fix in rnn_loop too): dynamic_decode for any decoder: its output structure, finalize (beam
    # search's gather_tree), a state's TensorArrays and scalars passed through); 2235 -> 2270:
    # tf.cond whose branches give an output two shapes: the if node sizes it by the branch taken
    # (TShapeAtRunTime, its body resizing), and its gradient's heads (_branch_head, its body);
    # 2270 -> 2305: while_loop's body checked as TF 1.15's under maximum_iterations (list vs
    # tuple, one variable), TensorArray.stack()'s TF 1.15 static shape, TensorArray.split;
    # 2305 -> 2325: 2026-11-27: tf.vectorized_map (map_fn, fn's result dtypes traced first)
    "control flow (while_loop, TensorArray, map_fn/scan/fold, dynamic_rnn's loop, seq2seq)": (
        ["nnvm/subgraph.py", "ops/loop.py", "lua_ops/loop/*", "executor/subgraphs.py",
         "frontend/loops.py", "frontend/tensor_array.py", "frontend/functional_ops.py",
         "frontend/nest.py", "frontend/nn/rnn_loop.py", "frontend/contrib/seq2seq_decoding.py"], 2325),
    # (3500 -> 3520: issue 25: the executor binds a node's subgraphs as nested executors, and
    # the variables they read count as the node's; 3520 -> 3540: issue 24 item 7, TF's op.inputs
    # are tensors (NodeEntry answers as its tensor) and op.type is TF's (TTFType); 3540 -> 3570:
    # issue 24 item 3, tf.data: ops whose outputs are pulled from Python before a run
    # (FPullOutputs) and Python ops given the session's resources (TSessionState), documented in
    # attrs.py, and the session's resources dict the executor hands them; 3570 -> 3590: inputs
    # a plan may write in place (donated: a loop body's loop variables), TDonatedInputs;
    # 3590 -> 3600: issue 25, x[i] with tensors: Symbol.__getitem__ hands an index holding
    # tensors to strided_slice's FTensorIndex (attrs.py), and the executor raises an op's TF
    # error class (InvalidArgumentError of an index out of range) as that class; 3600 -> 3610:
    # attrs.py documents FSubgraphArity and TShapeSubgraphs, which LoadJSON checks subgraphs by;
    # 3610 -> 3635: outputs sized at run time (TShapeAtRunTime) get tensors of their own, and a
    # graph reading them is bound in stages: bind_executor; 3635 -> 3650: attrs.py documents
    # TKeep and TSkippableOutputs, a loop's backward's; 3650 -> 3662: FCheckNode, which
    # create_op checks, and a hidden output (max_pool2d's argmax) is not fed: a max pool's
    # gradient given any other int64 tensor as its argmax wrote outside the tensor, SIGSEGV;
    # a size a body's kwarg.check_fits refuses as it runs is raised as the
    # ResourceExhaustedError it is; 3662 -> 3710: 2026-11-27: custom_gradient, broadcast_to,
    # meshgrid..., cosine_decay, Ftrl (TF-1 names programs use): Graph.gradient_override_map,
    # tf.RegisterGradient's registry, and the Gradient pass taking a node's override by name;
    # 3710 -> 3720: TF-1 queues (tf.train.batch, Coordinator...): FPullOutputs gets the run's
    # deadline (a dequeue's timeout_in_ms), a closing session ends its queues' waits, a fetched
    # string pulled (a reader's key) is answered as pulled; 3720 -> 3741: sparse tensors:
    # Session.run fetches and feeds a CompositeTensor (tf.SparseTensor) by its parts; graph
    # defs: tf.Graph.as_graph_def and Session.graph_def; GraphContext.keras); 3741 -> 3775:
    # tf.cond runs only the branch taken (TGuard): Node.guards, the Gradient pass guarding a
    # branch's gradient ops, PlanMemory keeping a guard's value, the executor's guarded closures;
    # 3775 -> 3790: shape arguments from values known when the graph runs (ValuesAtRunTime
    # from FoldShapeArguments, the executor's input values; GraphContext.loop_inputs); 3790 ->
    # 3800: static shapes through set_shape where inference knows not the rank (static_shape);
    # 3800 -> 3810: an op failing while running is TF's InvalidArgumentError (OpFailedError);
    # 3810 -> 3825: a fetch of a tensor of the tf.cond branch not taken is TF's
    # InvalidArgumentError, not what its storage held (the executor's _taken, _fetched), and
    # a gpu session's convolutions without TF32; 3825 -> 3850: TF's Operation and Tensor
    # surface (an operation symbol's type, inputs, control_inputs; consumers(), value_index)
    # and get_tensor_by_name's errors as TF's; attrs.py documents FShapeCheckedInputs (where's
    # vector condition gives no dim to its static shape, as TF's); 3850 -> 3865: lua_table checks
    # that Lua holds the objects given (lupa 2.8 can swap in another live one: lupa issues 293,
    # 294), refusing; the cause closed by the runtime's generational collector (_choose_lua);
    # 3865 -> 3905: TF 1.15's default names (a node by default its TF type, names unique
    # whatever their case, a scope's name taken as it is, the operators' add/mul/truediv...) and
    # the operators' autopacking of a list holding tensors (x * [t, 3.0]); tf.Variable's
    # validate_shape
    # 3905 -> 3915: TF's IndexedSlices: attrs.py documents FIndexedSlices and TCutsRows, a
    # tensor's operators densify one
    # 3915 -> 3960: TF-1 smoke tests: an unfed placeholder, an uninitialised variable and
    # shapes a run's feeds break raised as TF's run-time error classes; tf.Graph's collection
    # methods (get_collection's scope, get_collection_ref, get_all_collection_keys,
    # clear_collection, add_to_collections) and get_name_scope; Session.make_callable,
    # Variable.value
    CORE: (["nnvm/op.py", "nnvm/attrs.py", "nnvm/symbol.py", "nnvm/graph.py",
            "nnvm/variables.py", "nnvm/passes/gradient.py", "nnvm/passes/infer.py",
            "nnvm/passes/materialize.py", "nnvm/passes/order_mutation.py",
            "nnvm/passes/plan_memory.py", "executor/executor.py", "executor/memory.py",
            "executor/pipeline.py", "executor/cache.py", "lua_ops/runtime.py",
            "session/session.py", "session/variables.py"], 3960),
    # TF-1's feeds of any tensor (CutFeeds) and shapes computed from tensors (FoldShapeArguments):
    # passes every bind runs, beyond the six the teaching core explains; and (160 -> 265) TF-1's
    # shape errors as an op is made, unknown dims included (issue 24 item 7); 265 -> 280:
    # values known only when the graph runs (ValuesAtRunTime, the entry each fold wanted), a
    # fold after a shape known only then left to the stages; 280 -> 285: a scalar attribute
    # folded (one_hot's depth); 285 -> 295: an input an op's shape function only checks
    # (FShapeCheckedInputs: where's vector condition) gives the record no dim; 295 -> 300: an
    # unknown dim meeting a known one takes it, as TF's shape functions merge them (the shapes
    # every fitting value gives, re-applied once lupa's object swap it exposed was fixed)
    "TF-1 feed and shape passes, shape checks as ops are made (nnvm/passes/feeds.py, "
    "fold_shapes.py, nnvm/shape_checks.py)": (
        ["nnvm/passes/feeds.py", "nnvm/passes/fold_shapes.py", "nnvm/shape_checks.py"], 300),
    "optimisation passes (tinyflow/nnvm/optimizations)": (["nnvm/optimizations/*.py"], 980),
    # issue 25's loops in graph JSON: a node's subgraphs written over the document's one node
    # list and read back under LoadJSON's checks, with their nesting and binding bounded (what
    # an untrusted .meta holding loops needs); apart, as the control flow it serialises is
    "subgraphs in graph JSON (nnvm/passes/serialize_subgraphs.py)": (
        ["nnvm/passes/serialize_subgraphs.py"], 125),
    # 2026-11-27: graph defs (TF-1 names programs use): tf.GraphDef in TinyFlow's format (the
    # SaveJSON document, read back under LoadJSON's checks), tf.graph_util's freezing,
    # tf.import_graph_def and tf.train.write_graph; counted apart, as the .meta files are
    "graph defs: tf.GraphDef, freezing, import_graph_def (nnvm/graph_def.py, "
    "frontend/graph_util.py)": (["nnvm/graph_def.py", "frontend/graph_util.py"], 240),
    # (480 -> 485: tf.errors.OutOfRangeError, the end of a tf.data iterator; 485 -> 495: issue
    # 25, SaveJSON lists the subgraphs' nodes too and LoadJSON reads them, serialize_subgraphs;
    # 495 -> 500: LoadJSON checks each node's FCheckNode, max pool's argmax)
    # 500 -> 504: 2026-11-27: TF-1 queues (tf.train.batch, Coordinator...): tf.errors.CancelledError
    # 504 -> 540: 2026-11-27: TF 1.15's top-level names: every tf.errors class with its
    # error_code, and the seven classes TinyFlow lacked (AbortedError, DataLossError...);
    # 540 -> 655: TF 1.15's TensorShape and Dimension API programs call on static shapes
    # (concatenate, num_elements, with_rank*, assert_*, Dimension arithmetic and comparisons);
    # 655 -> 665: 2026-11-27: LoadJSON checks a placeholder's or variable's dtype and shape
    # (a list in a shape was a TypeError at bind, found loading mutated saved models); 665 ->
    # 695: TF-1 smoke tests: the bind's errors that are also TF's run-time classes
    # (FailedPrecondition...), DType's min, max, as_datatype_enum, is_unsigned...; 700 -> 725:
    # tf.Graph.device (nnvm/devices.py, out of the teaching core: tf.device's check moved down);
    # 725 -> 745: nnvm/host_memory.py (the host's available bytes, moved down from
    # executor/memory.py so that an op computed in Python checks its own result against them);
    # 745 -> 755: host_memory.py the one figure every host check reads (format_bytes moved down
    # with it, so the front end's readers need not import the executor, nor torch); 755 ->
    # 800: nnvm/replicas.py (tf.VariableSynchronization / Aggregation, which tf.Variable and
    # tf.get_variable check and record)
    "graph layer's rest (errors, dtypes, TensorShape, Save/LoadJSON)": (["nnvm/**/*.py"], 800),
    # 2026-11-27: the image ops no composition gives (greedy non-maximum suppression, alone
    # and per image and class, combined): declarations, bodies and host kernels, counted
    # apart as tf.image's front end is
    "image ops (ops/image.py, lua_ops/image/)": (["ops/image.py", "lua_ops/image/*"], 190),
    # issue 26: static_rnn over a BasicLSTMCell as one node (TF's BlockLSTM) and its gradient,
    # counted apart: an optimisation of the LSTM step, whose unrolled graph the rest teaches
    # (and the gradient of its gradient, the backward formulas as ordinary ops); 250 -> 310:
    # issue 26 point 2, the step's own kernels (one GEMM and the gates, the fused carries);
    # 310 -> 325: one step's row of the outputs nothing reads (attr one_step, KeepOneStep)
    "fused recurrent ops (ops/rnn.py, lua_ops/rnn/)": (["ops/rnn.py", "lua_ops/rnn/*"], 325),
    # 2026-11-27: tf.math's special functions (igamma, betainc, polygamma, zeta, erfinv,
    # ndtri, the Bessel functions, lbeta; tf.math.special): their ops, bodies and kernels
    # (torch.special's, betainc's continued fraction, igamma's derivative in a) and the TF
    # functions, counted apart as a family of their own
    "special functions (ops/special.py, lua_ops/special/, frontend/special_math_ops.py, "
    "tf_math_special.py)": (
        ["ops/special.py", "lua_ops/special/*", "frontend/special_math_ops.py",
         "frontend/tf_math_special.py"], 310),
    # 2026-11-27: TF-1 losses, conv3d, random_gamma (TF-1 names programs use): convolution and
    # pooling over volumes (tf.nn.conv3d, max_pool3d, avg_pool3d and their gradients): a
    # family of its own, its ops, bodies, kernels and tf.nn functions, counted apart
    # (400 -> 425: 2026-11-27 (nn17): tf.nn.conv3d_transpose on conv3d's input-gradient op)
    "3-D convolution and pooling (ops/volume.py, lua_ops/volume/, frontend/nn/volume.py)": (
        ["ops/volume.py", "lua_ops/volume/*", "frontend/nn/volume.py"], 425),
    # 2026-11-27: TF-1 losses, conv3d, random_gamma (TF-1 names programs use): draws whose law
    # takes tensor parameters (tf.random_gamma, tf.random_poisson) and the gamma's gradient in
    # alpha: a family of its own, its ops, bodies and kernels, counted apart
    "random draws with tensor parameters (ops/sampling.py, lua_ops/sampling/)": (
        ["ops/sampling.py", "lua_ops/sampling/*"], 115),
    # (2000 -> 2060: issue 24, shapes computed from tensors: each small int op's FFoldValue and
    # the shaped_by_value op; 2060 -> 2230: issue 24 item 7, second-order gradients: the
    # FGradient of each of the 18 backward ops, and _max_pool2d_backward_backward; 2230 -> 2260:
    # item 7.5, TTFType, the TF op type name where it is not our name in CamelCase; 2260 ->
    # 2290: item 7.2, the two candidate samplers)
    # 2290 -> 2330: item 3, tf.data's iterator ops (get_next pulled from Python, initialisers);
    # 2330 -> 2340: issue 25, where_true (tf.where(condition)) sized at run time; 2340 -> 2380:
    # the max pool gradient's FCheckNode (its argmax must be its own pool's: a SIGSEGV before);
    # hostile documents: a pooling gradient's kernel fits x as the forward's does, a constant's
    # value fills its shape (tests/test_hostile_op_inputs.py); the ops whose indices a GPU's
    # kernel would not check are TUncapturable (checked on the host there)
    # 2380 -> 2500: 2026-11-27: tf.sin..., tf.cumsum, tf.einsum, tf.norm (TF-1 names programs use)
    # 2500 -> 2550: 2026-11-27: conv1d, dilations, depthwise/separable (TF-1 names programs
    # use), the dilated kernel checked to fit x in the gradients' shape rules too
    # 2550 -> 2885: 2026-11-27: segment sums, sort, unique, matrix ops, Assert, case (TF-1
    # names programs use); 2885 -> 2960: custom_gradient, broadcast_to, meshgrid...,
    # cosine_decay, Ftrl (TF-1 names programs use): the custom_gradient op (IdentityN),
    # dynamic_stitch, orthogonalize (tf.orthogonal_initializer's QR), the proximal and FTRL
    # update ops; 2960 -> 3040 (ctc_loss: 40): tf.math.cumulative_logsumexp beside cumsum (math.py), with TF's
    # gradient (running logsumexps of the gradient's two signs); TF 1.15's top-level names:
    # variables_initialized (tf.is_variable_initialized, tf.report_uninitialized_variables);
    # 3040 -> 3065: branch_input (TF's Switch: a tf.cond branch's gradient only where taken);
    # 3065 -> 3070: adam_update takes TF's beta powers (ApplyAdam); 3070 -> 3080: 2026-11-27:
    # gather's and embedding_lookup's backward ops say they are TF's IndexedSlices
    # (FIndexedSlices), a composition's gather says its gradient is dense (dense_gradient); and TF-1 smoke tests:
    # iterator_string_handle, and a feedable iterator's get_next reading the handle (3080 -> 3095)
    # 3095 -> 3150: index_to_string / string_to_index (ops/lookup.py: the canned heads' classes
    # and label_vocabulary, TF's vocabulary lookups, computed outside the executor); 3150 ->
    # 3160: index_to_string's strings checked against the host's memory; 3160 -> 3170:
    # 2026-11-27: next_after (tf.math.nextafter), the host's memory read through its module;
    # 3170 -> 3225: tf.timestamp's op (the clock read in Python when it runs), tf.bitwise's
    # six ops and tf.bitcast (TF's shape function, its attrs checked)
    "op declarations (tinyflow/ops)": (["ops/*.py"], 3225),
    # 1150 -> 1160: gather's, the scatters' and TensorArray write's indices checked on a GPU;
    # 1160 -> 1270: 2026-11-27: tf.sin..., tf.cumsum, tf.einsum, tf.norm (TF-1 names programs use)
    # 1270 -> 1365: 2026-11-27: segment sums, sort, unique, matrix ops, Assert, case; 1365 ->
    # 1390: custom_gradient, dynamic_stitch, orthogonalize, the proximal and FTRL updates;
    # 1390 -> 1415: 2026-11-27: tf.bitwise's six ops and tf.bitcast; 1415 -> 1420: tf.math.nextafter
    "Lua op bodies (tinyflow/lua_ops/*/*.lua)": (["lua_ops/*/*.lua"], 1420),
    # issue 26: how the CPU kernels' threads wait and how many a run uses (no cliff when
    # another process holds a core): a mechanism of its own, beside the kernels it serves;
    # 130 -> 145: the chooser on by default, so it switches on strong evidence only (starved
    # threads by the process's CPU time, a margin between the counts)
    # 145 -> 165: the cores' idle time (/proc/stat) gates the probes of all threads from one,
    # which under a busy core cost a tenth of LeNet's first 60 steps
    "CPU threads (lua_ops/threads.py, executor/threads.py)": (
        ["lua_ops/threads.py", "executor/threads.py"], 165),
    # issue 26 (2026-11-27): C kernels for what torch's are slowest at (max pooling of 2x2
    # windows: 2-4x its speed, the same bits), compiled on first use by the system's compiler,
    # torch's kernel where there is none
    "native kernels (lua_ops/native.py, lua_ops/*/*.c)": (
        ["lua_ops/native.py", "lua_ops/*/*.c"], 140),
    # what a body may touch and what keeps it in bounds: the generic torch table, the sandbox
    # (sandbox.lua), Ctrl-C and deadlines at any instruction (interrupts.py), and the families'
    # engine kernels only built-in bodies reach (1700 -> 1710: issue 26, Torch7's addcmul in
    # the torch table, one kernel for a + s * b * c in the fused LSTM's steps)
    "the sandbox boundary and the families' kernels (tinyflow/lua_ops)": (
        # 1710 -> 1720: where_true's nonzero; 1720 -> 1750: hostile inputs: indices checked on
        # a GPU (array/kernels.py gpu_checked, in the families using it), window paddings no TF
        # padding gives refused (conv/kernels.py); 1750 -> 1775: 2026-11-27: tf.sin...,
        # tf.cumsum, tf.einsum, tf.norm (TF-1 names programs use); 1775 -> 1790: 2026-11-27:
        # conv1d, dilations, depthwise/separable (TF-1 names programs use); 1790 -> 1985:
        # 2026-11-27: segment sums, sort, unique, matrix ops, Assert, case; 1985 -> 2070:
        # custom_gradient, broadcast_to, meshgrid..., cosine_decay, Ftrl: dynamic_stitch's
        # kernel (array/kernels.py stitch), orthogonalize's QR, the proximal and FTRL steps;
        # 2070 -> 2090: issue 26, small softmax kernels on one thread (softmax/kernels.py);
        # 2090 -> 2140: tf.nn.ctc_loss's kernel, TF's checks and its unalignable examples;
        # 2140 -> 2150: the host's guarded closure (sandbox.lua: a tf.cond branch's ops);
        # 2150 -> 2160: TF's ApplyAdam step (optim/kernels.py) on torch's fused Adam, whose
        # epsilon enters differently: TF's lr_t and betas given to it (tests/test_optimizer_names);
        # 2160 -> 2170: the first GPU check: CUDA's division by a number is a product with its
        # reciprocal, one float step off (torch_table.py _divisor); 2170 -> 2175: 2026-11-27:
        # tf.math.nextafter's kernel (math/kernels.py); 2175 -> 2195: tf.bitwise's and
        # tf.bitcast's kernels, tensor_scatter_nd's max / min; 2195 -> 2240: issue 26, max
        # pooling's native kernel chosen at the body's setup (conv/kernels.py)
        ["lua_ops/**/*.py", "lua_ops/*.lua"], 2240),
    # shapes known only at run time (tf.where(c), boolean_mask, a loop variable whose shape
    # varies, a dynamic_size TensorArray): the executor binds the graph in stages, the later
    # ones per shapes seen; a mechanism of its own beside the static plan it extends
    # (200 -> 210: the later stages also per value of a shape argument, tf.zeros([n]) fed)
    "shapes known at run time (executor/stages.py)": (["executor/stages.py"], 215),
    # (560 -> 590: session/pull.py, a tf.data iterator's element pulled and fed before a run;
    # 590 -> 610: issue 25, a loop's kept bytes per iteration in the memory plan report;
    # 610 -> 625: issue 26, ConfigProto's intra_op_parallelism_threads read and checked;
    # 625 -> 675: issue 25, the reports of an executor bound in stages, its later stages too;
    # 675 -> 680: issue 26, TF_DETERMINISTIC_OPS keeps torch's thread count;
    # 680 -> 690: 2026-11-27: TF-1 queues (tf.train.batch, Coordinator...): pulls inputs first,
    # a pull reads this run's earlier pulls (decode_raw of a reader's record), strings unfed
    # and answered as pulled when fetched); 695 -> 700: a tf.cond branch's guarded ops are
    # never in a CUDA graph; 700 -> 705: a CUDA graph's feeds copied on the host by numpy (torch's
    # OpenMP copy cost a GPU host 4-6 ms a step); 705 -> 725: 2026-11-27: TFRecords: a string
    # placeholder's feed (pull.py's string_feed) read by the pulled ops and Python ops
    # (tf.parse_example, a TFRecordDataset's file names at its initializer); 725 -> 735:
    # 2026-11-27: the process's thread counts a session without a ConfigProto takes
    # (tf.config.threading's ThreadDefaults)
    "executor and session's rest (options, CUDA graphs, reports, random streams)": (
        ["executor/*.py", "session/*.py"], 735),
    # 2026-11-27 (kerasdata18): tf.keras.datasets (mnist, fashion_mnist, cifar10, cifar100,
    # imdb, reuters, boston_housing as TF 1.15 loads them), tf.keras.preprocessing's sequence
    # and text (pad_sequences, skipgrams, Tokenizer...) and get_file (Keras' cache, MD5 /
    # SHA-256, archives whose members cannot escape), with a reader of the pickles in data set
    # files that runs nothing (keras/datasets/safe_pickle.py: pickle's opcodes interpreted,
    # every size checked): counted apart, as tf.data is
    "tf.keras data sets and preprocessing (keras/datasets/, keras/preprocessing/, "
    "keras/data_utils.py)": (
        ["frontend/keras/datasets/*.py", "frontend/keras/preprocessing/*.py",
         "frontend/keras/data_utils.py"], 1320),
    # 800 -> 815: sources.download, the one downloader, public for get_file (MD5 or no hash)
    # (815 -> 825: CIFAR-10's unpickler gives numpy's array constructor only as numpy's own
    # pickles call it: a batch cannot ask for memory its bytes do not hold)
    "datasets": (["datasets/*.py"], 825),
    # tf.data (issue 24 item 3): datasets, their numpy pipeline, traced map / filter functions
    # and iterators whose get_next is a graph op; a component of its own, the input pipeline
    # (900 -> 1000: enumerate, shard, unbatch, take_while, unique, tf.data.experimental's
    # Counter, shuffle_and_repeat, map_and_batch...)
    # 1000 -> 1060: flat_map and interleave (a function giving a dataset, TF's cycle order),
    # range of tensors (captured); 1060 -> 1070: 2026-11-27: TFRecords: tf.data's file
    # datasets' names, a map function's string outputs kept as strings, a sparse one refused
    # saying what to do; 1070 -> 1135: Dataset.reduce (reduce_func traced on the state's specs
    # relaxed as TF's, its node pulled as get_next's is: one helper for both); 1135 -> 1440: TF-1 smoke tests:
    # a function traced inside flat_map's / interleave's function reads the enclosing
    # functions' tensors (captures fed), feedable iterators (string_handle,
    # Iterator.from_string_handle), tf.data.experimental.group_by_window and
    # bucket_by_sequence_length (grouping.py), choose_from_datasets and sample_from_datasets
    # (directed.py); 1440 -> 1675: tf.data.Options with TF 1.15's options and their merge
    # (options.py, none with an effect here) and Dataset.with_options; Dataset.window, its
    # windows datasets read by flat_map / interleave; 1675 -> 1700: a map function reads
    # the tables of the session pulling the element (program_resources); 1700 -> 1790:
    # 2026-11-27 (strdata18): string elements (from_tensor_slices / from_tensors of strings,
    # b"" padding, string unique, a map returning a str), Dataset.list_files,
    # parallel_interleave, tf.contrib.data (its names of tf.data.experimental's, counted here)
    # 2026-11-27 (strdata18): tf.data.experimental.CsvDataset (records over line breaks in
    # quotes, TF's checks and errors) and make_csv_dataset (column names and types read from
    # the files as TF infers them), counted apart as the TFRecord readers are
    "CSV datasets (frontend/data/csv_datasets.py)": (["frontend/data/csv_datasets.py"], 290),
    "tf.data (tinyflow/frontend/data)": (["frontend/data/*.py", "frontend/contrib/data.py"],
                                         1790),
    "distributed training (tinyflow/distributed.py)": (["distributed.py"], 250),
    # 2026-11-27: tf.contrib.seq2seq's attention (Luong, Bahdanau, AttentionWrapper), beam
    # search (BeamSearchDecoder, tile_batch, gather_tree composed of a reverse scan) and the
    # sampling helpers (SampleEmbedding, ScheduledEmbeddingTraining), TF 1.15's
    # formulas on the front end's ops; counted apart as TF keeps them in their own files, with
    # the namespace module of tf.contrib.seq2seq's names
    "tf.contrib.seq2seq attention, beam search and sampling (contrib/seq2seq.py, "
    "seq2seq_attention.py, seq2seq_beam_search.py, seq2seq_sampling.py)": (
        ["frontend/contrib/seq2seq.py", "frontend/contrib/seq2seq_attention.py",
         "frontend/contrib/seq2seq_beam_search.py", "frontend/contrib/seq2seq_sampling.py"],
        870),
    # 2026-11-27: tf.distributions (TF 1.15's families, KL registry, contrib's
    # MultivariateNormalDiag) composed from existing ops: a component of its own, as TF's
    "tf.distributions (frontend/distributions, frontend/contrib/distributions.py)": (
        ["frontend/distributions/*.py", "frontend/contrib/distributions.py"], 940),
    # 2026-11-27: tf.metrics (issue 24 item 4's eight, 389 lines, moved here from TF-1 program
    # support) completed to TF 1.15's: counts, thresholds, errors, per-class accuracy and the
    # ranking metrics (metrics_at_k.py), with tf.contrib.metrics' streaming_* names; a
    # component of its own, as TF's metrics_impl
    "tf.metrics (frontend/metrics*.py, frontend/contrib/metrics.py)": (
        ["frontend/metrics.py", "frontend/metrics_at_k.py", "frontend/metrics_base.py",
         "frontend/contrib/metrics.py"], 1010),
    # 2026-11-27: tf.contrib.crf (TF 1.15's linear-chain CRF: scores, log-norm, Viterbi, its
    # three RNN cells run by dynamic_rnn), composed of existing ops: counted apart, as TF's
    # contrib modules are separate packages
    "tf.contrib.crf (frontend/contrib/crf.py)": (["frontend/contrib/crf.py"], 370),
    # 2026-11-27: tf.contrib.opt (TF 1.15's decoupled weight decay, LazyAdam, PowerSign,
    # AddSign and their sign decays, MovingAverageOptimizer), composed of tf.train's
    # optimizers and existing ops
    # (255 -> 270: its import of 19 names one a line, as ruff's isort wraps them)
    "tf.contrib.opt (frontend/contrib/opt.py)": (["frontend/contrib/opt.py"], 270),
    # 2026-11-27: tf.signal's real-valued part (frames, overlap-add, windows, mel matrix,
    # MFCCs, DCTs) composed of existing ops, with tf.spectral's and tf.contrib.signal's names
    "tf.signal (frontend/tf_signal.py, tf_spectral.py, contrib/signal.py)": (
        ["frontend/tf_signal.py", "frontend/tf_spectral.py", "frontend/contrib/signal.py"], 290),
    # 1950 -> 2095: 2026-11-27: conv1d, dilations, depthwise/separable (TF-1 names programs use)
    # 2095 -> 2680: 2026-11-27: tf.contrib.layers conv2d..., arg_scope, tf.contrib.slim (TF-Slim's
    # layers on tf.nn / tf.layers, tf.contrib.framework, tf.contrib.losses, slim's aliases)
    # 2680 -> 3110: 2026-11-27: tf.contrib.rnn's own cells (LSTMBlockCell, LSTMBlockFusedCell,
    # LayerNormBasicLSTMCell, the projection, embedding and attention wrappers:
    # contrib/rnn_cell.py), its stacked bidirectional RNNs, and
    # tf.nn.rnn_cell's ResidualWrapper and DeviceWrapper, on a wrapper base DropoutWrapper shares;
    # 3110 -> 3125: tf.keras: a layer's call scopes and input conversion as methods tf.keras'
    # layers replace (one __call__ for both), and dir(tf.layers) TF's names only;
    # 3125 -> 3160: tf.nn.conv1d_transpose, conv2d_transpose over a width (nn/conv_transpose.py);
    # 3160 -> 3295: tf.nn.conv2d_backprop_input / conv2d_backprop_filter on conv2d's gradient
    # ops, with TF's shape checks (nn/conv_transpose.py); tf.layers' Conv3D, MaxPooling3D,
    # AveragePooling3D; 3295 -> 3540: tf.contrib.layers.optimize_loss (contrib/optimizers.py),
    # tf.contrib.training.HParams (contrib/training.py); 3540 -> 3555: dynamic_rnn takes
    # numpy inputs (TF converts them); over a state holding TensorArrays (AttentionWrapper's
    # alignment_history) it takes the loop; 3555 -> 3600: 2026-11-27 (nn17):
    # tf.nn.atrous_conv2d_transpose as TF composes it (nn/conv_transpose.py)
    "tf.layers and recurrent networks (layers, rnn_cell, rnn, contrib)": (
        ["frontend/layers.py", "frontend/nn/conv_transpose.py", "frontend/nn/rnn_cell.py",
         "frontend/nn/rnn.py", "frontend/contrib/*.py"], 3600),
    # 2026-11-27: tf.keras for TF-1 graph programs (Keras layers over tf.layers' classes, the
    # layers tf.layers lacks, Input/Model/Sequential and their compile/fit/evaluate/predict
    # loop, losses, activations, initializers, regularizers, backend): counted apart, as
    # tf.data is
    # 2026-11-27: tf.keras' recurrent layers as TF 1.15 has them (the cells, RNN, LSTM, GRU,
    # SimpleRNN, StackedRNNCells, their loop over time with Keras' masks and dropout) and the
    # Bidirectional / TimeDistributed wrappers: counted apart from the layers they join
    "tf.keras recurrent layers (frontend/keras/recurrent.py, wrappers.py)": (
        ["frontend/keras/recurrent.py", "frontend/keras/wrappers.py"], 580),
    # 2026-11-27: tf.keras.metrics' functions (the accuracies, the losses under their metric
    # names), which TF-1 programs call on a model's outputs: counted apart, a new module
    "tf.keras.metrics (frontend/keras/metrics.py)": (["frontend/keras/metrics.py"], 70),
    # 2026-11-27: tf.keras training as TF 1.15 runs it in graph mode: compile (losses, metrics,
    # loss weights), fit / evaluate / predict over numpy arrays (validation split, sample and
    # class weights, shuffling as Keras draws it), Keras' seven optimizers (OptimizerV2's
    # updates), the callbacks (History, EarlyStopping, ModelCheckpoint, LearningRateScheduler,
    # TensorBoard, LambdaCallback), save_weights / load_weights, tf.keras.utils' arrays: counted
    # apart, new modules (training.py moved here from the row below, 178 lines then); 1020 ->
    # 1100: ReduceLROnPlateau, CSVLogger and TerminateOnNaN, the rest of TF 1.15's callbacks;
    # 1100 -> 1120: a Sequential model without an input shape compiled once data builds it;
    # 1120 -> 1225: fit / evaluate / predict on a tf.data Dataset (an initializable iterator,
    # steps_per_epoch, Keras' means by steps and by samples, the validation from the start)
    "tf.keras training (frontend/keras/training.py, training_loop.py, optimizers.py, "
    "callbacks.py, utils.py)": (
        ["frontend/keras/training.py", "frontend/keras/training_loop.py",
         "frontend/keras/optimizers.py", "frontend/keras/callbacks.py",
         "frontend/keras/utils.py"], 1225),
    # (1465 -> 1570: Keras' masks passed from layer to layer (engine.py: compute_mask,
    # supports_masking), Embedding(mask_zero), Masking, RepeatVector, LayerNormalization)
    "tf.keras (frontend/keras)": (["frontend/keras/*.py"], 1570),
    # what TF-1 programs use around the model: summaries and event files, gfile, tf.errors,
    # tf.losses, learning-rate schedules, tf.app/flags/logging, input_data, saver, pictures
    # (2700 -> 2750: untrusted checkpoints and full disks, issue 23: the restore's byte budget,
    # NUL names refused, a FileWriter naming its file and closing after a failed write)
    # (2750 -> 3130: tf.metrics, issue 24 item 4: eight streaming metrics over local variables,
    # TF 1.15's shape checks and its AUC summation methods; they sit beside tf.losses)
    # (3130 -> 3520: issue 24 item 6: the Saver on TensorFlow's V2 checkpoints, with TF's names
    # for slots and Adam's beta powers, every entry of an untrusted file checked, the reader
    # functions (NewCheckpointReader, list_variables...), the earlier .npz still read; .meta
    # graphs and import_meta_graph, meta_graph.py)
    # (3520 -> 3560: viz draws a node's subgraphs, a loop's cond and body, as clusters;
    # 3560 -> 3640: 2026-11-27: custom_gradient, broadcast_to, meshgrid..., cosine_decay, Ftrl
    # (TF-1 names programs use): the four cosine schedules; 3640 -> 3655: export_meta_graph
    # names the node holding a Python object; 3655 -> 3665: FileWriter.add_session_log, the
    # summary protos as tf.Summary / tf.summary.Summary name them; 3665 -> 3276: tf.metrics
    # counted apart; 3276 -> 3306: tf.errors' codes and the maps between codes and classes;
    # 3306 -> 3551: TF 1.15's losses (absolute_difference, huber, log, hinge, cosine, sigmoid
    # cross-entropy, mean pairwise squared error; TF's weights check) in loss_functions.py,
    # tf.losses (losses.py) now holding TF's public names only; 3551 -> 3580: TF-1 smoke
    # tests: Saver's TF 1.15 arguments (keep_checkpoint_every_n_hours, pad_step_number,
    # save_relative_paths, allow_empty...), tf.train.SaverDef's versions,
    # ExponentialMovingAverage.variables_to_restore as TF's, piecewise_constant_decay; 3580 -> 3585: merged beside the default-names change)
    # 3585 -> 3640: 2026-11-27: tables in checkpoints (saver.py: TF's <name>-keys / -values
    # read, checked against the table and counted against the restore's memory, string entries)
    "TF-1 program support (summary, events, saver, losses, schedules, app, flags...)": (
        ["frontend/summary.py", "frontend/events.py", "frontend/errors.py",
         "frontend/losses.py", "frontend/loss_functions.py", "frontend/learning_rate_decay.py",
         "frontend/app.py", "frontend/flags.py", "frontend/tf_logging.py", "frontend/saver.py",
         "frontend/meta_graph.py", "frontend/viz.py", "frontend/testing.py",
         "examples/**/*.py"], 3640),
    # 2026-11-27: tf.test (TestCase: sessions on a fresh graph, TF's asserts on nested
    # structures of arrays and tensors) and TF's file API (tf.gfile, moved here from the
    # program support above with its 112 lines, and tf.io.gfile's lower-case names): what
    # programs' own tests and file code use, counted apart; with tf.test.compute_gradient's
    # Jacobians (TF 1.15's layout)
    # (490 -> 640: TFRecord files, tf.python_io / tf.io's writer and iterator, python_io.py;
    # 640 -> 660: 2026-11-27: TFRecords: records read from any stream (TFRecordReader's), TF's
    # gzip bytes written, a compressed record's read checked against the free memory;
    # 660 -> 670: tf.io's names for matching_files, write_file, serialize_tensor, parse_tensor
    # and write_graph, and what its docstring says of them; 670 -> 675: tf.io.decode_base64 /
    # encode_base64 named in tf_io/; 675 -> 690: tf.io's image files (decode_png, encode_png,
    # decode_bmp, decode_image, is_jpeg, extract_jpeg_shape) named in tf_io/)
    "tf.test and the file API (frontend/tf_testing.py, gfile.py, tf_io/, python_io.py)": (
        ["frontend/tf_testing.py", "frontend/gfile.py", "frontend/tf_io/*.py",
         "frontend/python_io.py"], 690),
    # 2026-11-27: TF 1.15's top-level names programs use (tf.assert_*, tf.debugging,
    # tf.check_numerics, tf.print, tf.nest, tf.eye, tf.roll, tf.space_to_batch_nd,
    # tf.div_no_nan..., the scatter writes tf.scatter_mul..., tf.get_local_variable...),
    # composed of existing ops: a component of its own, as tf.distributions (1145 -> 1290:
    # tf.is_tensor, get_static_value, broadcast shapes, IndexedSlices, tf.range to a size
    # known at bind...: framework_names.py; 1290 -> 1325: tf.sequence_mask of fed lengths,
    # its static shape from a size known whatever the fed ones (tf.shape(x)[1]); 1325 -> 1380:
    # tf.linspace's num and tf.slice's sizes known only when the graph runs; 1380 -> 1400:
    # 2026-11-27 (nn17): tf.required_space_to_batch_paddings, space_to_batch's rank check)
    "TF-1 top-level names (check_ops, tf.nest, array, math and scatter compositions)": (
        ["frontend/check_ops.py", "frontend/tf_debugging.py", "frontend/tf_nest.py",
         "frontend/array_manip_ops.py", "frontend/safe_math_ops.py",
         "frontend/scatter_updates.py", "frontend/collection_ops.py",
         "frontend/framework_names.py"], 1400),
    # 2026-11-27: TF 1.15's names of the machine and the program's settings (tf.config's
    # devices, threads and memory growth, tf.DeviceSpec's parsing and merging, tf.version), a
    # component of its own, as TF's framework/config.py and device_spec.py are; with the ops
    # Python computes when they run (tf.py_function's eager values, tf.timestamp)
    "tf.config, tf.DeviceSpec, tf.version, tf.py_function (frontend/tf_config/, device_spec.py, "
    "tf_version.py, py_function_ops.py)": (
        ["frontend/tf_config/*", "frontend/device_spec.py", "frontend/tf_version.py",
         "frontend/py_function_ops.py"], 340),
    # 2026-11-27: tf.make_tensor_proto / tf.make_ndarray: TensorFlow's TensorProto in protobuf's
    # wire format by hand, as the checkpoint format is (untrusted bytes parsed, checked), in
    # TF's module name (tensor_util.py; tf.io's TensorProto bytes are tensor_proto.py's)
    "tf.make_tensor_proto (frontend/tensor_util.py)": (["frontend/tensor_util.py"], 280),
    # TensorFlow's checkpoint format by hand (issue 24 item 6), no new dependency: crc32c
    # vectorised with numpy, the protobuf fields of the tensor bundle, LevelDB's table
    # (470 -> 430: Adam's step count no longer stored as TF's powers: Adam keeps TF's own)
    # 430 -> 465: 2026-11-27: a partitioned variable's slices (TensorSliceProto, and their
    # entries' keys: OrderedCode's EncodeTensorNameSlice), so TF's sliced checkpoints restore
    # 465 -> 510: 2026-11-27: string tensors (tensor_bundle's WriteStringTensor layout and
    # checksums), for mutable tables' keys and values
    "TensorFlow's checkpoint format (frontend/checkpoint_format.py)": (
        ["frontend/checkpoint_format.py"], 510),
    # TF-1's import paths (issue 24 item 7.3): a module per tensorflow.python module that
    # programs import, each re-exporting TinyFlow's objects (reexport.py, tf_modules.txt);
    # 260 -> 315: client/timeline.py (a traced run as a Chrome trace, TF's own module);
    # platform.test, framework.graph_util and framework.importer; 315 -> 340: 2026-11-27:
    # tf.saved_model's six modules (saved_model.builder, loader, tag_constants...)
    "tensorflow.python paths (tinyflow/python)": (["python/**/*.py"], 340),
    # word2vec's losses (issue 24 item 7.2): TF's _compute_sampled_logits composed from ops
    "sampled losses (tinyflow/frontend/nn/sampled.py)": (["frontend/nn/sampled.py"], 120),
    # 2026-11-27: tf.nn's TF 1.15 names past the seed's (fused_batch_norm with its Bessel-
    # corrected variance, batch_norm_with_global_normalization, the 1-D / v2 pooling names,
    # dilation2d / erosion2d, log_poisson_loss), composed from existing ops; apart, as sampled.py
    # 245 -> 395: 2026-11-27 (nn17): max_pool_with_argmax (TF's flattened argmax, tap by tap),
    # compute_average_loss and scale_regularization_loss, with_space_to_batch (space_batch.py),
    # also composed from existing ops
    "tf.nn's TF 1.15 additions (nn/normalization.py, nn/pooling.py, nn/losses.py...)": (
        ["frontend/nn/normalization.py", "frontend/nn/pooling.py", "frontend/nn/losses.py",
         "frontend/nn/space_batch.py"], 395),
    # 2026-11-27: tf.image (TF 1.15's image_ops for input pipelines: crops, flips, colour,
    # resizing as TF1's kernels), composed from existing ops; a component of its own, as TF's
    # (665 -> 1265: 2026-11-27, the rest of TF 1.15's tf.image: bicubic and area resizing,
    # resize_image_with_pad, YUV / YIQ (frontend/image_resize.py), psnr / ssim / ms-ssim
    # (image_quality.py), crop_and_resize, draw_bounding_boxes, sample_distorted_bounding_box
    # and the NMS functions, combined too (image_boxes.py), each composed as TF composes it or on the
    # non_max_suppression op)
    "tf.image (frontend/image_*.py, frontend/tf_image.py)": (
        ["frontend/image_*.py", "frontend/tf_image.py"], 1265),
    # 2026-11-27: tf.feature_column (TF 1.15's v1 columns, input_layer, linear_model) and the
    # premade estimators over them (DNN / linear / combined, TF 1.15's heads), composed of
    # existing ops: a component of its own, as TF keeps feature columns and canned estimators
    # 840 -> 860: the heads' string predictions (classes, all_classes) and label_vocabulary
    # 860 -> 870: a categorical column's id weights (weighted_categorical_column) in the
    # embedding / linear sums and the indicator, TF's pruning of weights <= 0 but for a sum
    "tf.feature_column and premade estimators (feature_column.py, estimator/canned, heads)": (
        ["frontend/feature_column.py", "frontend/estimator/canned.py",
         "frontend/estimator/heads.py"], 870),
    # 2026-11-27: tf.saved_model (simple_save, SavedModelBuilder, loader.load, signatures) and
    # tf.estimator's export (ServingInputReceiver, PredictOutput, Estimator.export_saved_model's
    # exporter): a served model's directory and its untrusted reading, counted apart as TF
    # keeps saved_model apart from tf.train
    "tf.saved_model (frontend/saved_model, estimator/export.py, estimator/exporter.py)": (
        ["frontend/saved_model/*.py", "frontend/estimator/export.py",
         "frontend/estimator/exporter.py"], 850),
    # TF-1's training loops (issue 24 item 5): monitored sessions and their hooks, and
    # tf.estimator on them; a component of their own, as TensorFlow keeps them apart from tf.train
    # (1560 -> 2030: tf.train.Supervisor, SessionManager, basic_train_loop: supervisor.py;
    # ProfilerHook, GlobalStepWaiterHook; 2030 -> 2090: Estimator(warm_start_from=a checkpoint),
    # get_variable_names / get_variable_value, numpy_input_fn naming a string feature,
    # tf.estimator.inputs.pandas_input_fn; 2090 -> 2110: 2026-11-27: Estimator.export_saved_model
    # and export_savedmodel, over estimator/exporter.py; 2110 -> 2205: TF-1 smoke tests:
    # tf.estimator.train_and_evaluate, TrainSpec, EvalSpec: estimator/training.py; 2205 ->
    # 2215: 2026-11-27 (strdata18): Scaffold.default_local_init_op, TF's, which initialises
    # the tables too, shared by Supervisor)
    "TF-1 training loops (monitored sessions, session-run hooks, tf.estimator, Supervisor)": (
        ["frontend/monitored_session.py", "frontend/session_run_hooks.py",
         "frontend/supervisor.py", "frontend/estimator/*.py"], 2215),
    # (3200 -> 3260: issue 24 item 7: tf.placeholder_with_default and tf.sequence_mask, each
    # with its numpy-style docstring, composed from existing ops; 3260 -> 3300: item 7, the two
    # candidate samplers (tf.nn / tf.random) and op.inputs[i] taken where tensors are;
    # 3300 -> 3340: items 3 and 5, the lazy tf.train names of the training loops, GraphKeys'
    # LOCAL_INIT_OP / SUMMARY_OP / SAVERS, tf.cond's one-branch node; 3340 -> 3350: issue 25,
    # tf.strided_slice with tensor begin/end/strides and tf.<indexing ops> exported;
    # 3350 -> 3390: tf.boolean_mask as TF composes it and tf.where's one-argument form)
    # 3390 -> 3620: 2026-11-27: tf.sin..., tf.cumsum, tf.einsum, tf.norm (TF-1 names programs use)
    # 3620 -> 3840: 2026-11-27: conv1d, dilations, depthwise/separable (TF-1 names programs use)
    # 3840 -> 4250: 2026-11-27: segment sums, sort, unique, matrix ops, Assert, case (TF-1
    # names programs use); 4250 -> 4590: custom_gradient, broadcast_to, meshgrid...,
    # cosine_decay, Ftrl (TF-1 names programs use): tf.custom_gradient, tf.RegisterGradient,
    # tf.hessians (frontend/gradient_ops.py), tf.broadcast_to, tf.meshgrid, tf.linspace,
    # tf.make_template, tf.orthogonal_initializer and tf.initializers' identity, orthogonal,
    # local_variables, tf.train.FtrlOptimizer, ProximalAdagradOptimizer,
    # ProximalGradientDescentOptimizer; 4590 -> 4615: TF-1 queues (tf.train.batch,
    # Coordinator...): their names in tf., tf.train. and tf.errors (CancelledError),
    # GraphKeys.QUEUE_RUNNERS; 4615 -> 4695: tf.gather's batch_dims (TF 1.15's GatherV2),
    # TF's module paths (import tinyflow.contrib.slim as slim: frontend/module_paths.py);
    # 4695 -> 4820: tf.train.init_from_checkpoint and the checkpoint files' functions
    # (checkpoint_utils.py), tf.nn's statistics past moments (nn/statistics.py); TF 1.15's
    # top-level names (tf.assert_*, tf.nest, tf.eye..., tf.get_local_variable,
    # tf.model_variables...): re-exported by tinyflow/__init__.py, tf.math / tf.linalg,
    # tf.double / tf.half, the collection and variable functions; 4820 -> 4935:
    # tf.extract_image_patches (a pad, a strided slice per tap, a concat),
    # tf.histogram_fixed_width (TF's kernel's bins, counted by unsorted_segment_sum), tf.nn's
    # conv3d / pool3d / conv2d_backprop_* names, tf.random_gamma and tf.random_poisson;
    # 4935 -> 5070: tf.matmul of batches of matrices, broadcast (matmul_ops.py); tf.slice at
    # a begin known only when the graph runs; tf.nn.embedding_lookup of shards (mod, div);
    # Optimizer.get_slot / get_slot_names / variables; tf.manip, tf.tables_initializer in
    # init_ops; tf.linalg.matvec, tf.cross, tf.linalg.adjoint; tf.nn.ctc_loss and
    # ctc_greedy_decoder (nn/ctc.py); 5220 -> 5245: tf.cond's branches read outer tensors
    # through branch_input (no NaN gradient from the branch not taken) and run only when taken
    # (their guard); 5245 -> 5275: optimizers' slots and Adam's beta powers made, reused and
    # named as TF 1.15's (train.py: Optimizer._slot, _non_slot; the lines freed in the
    # checkpoint format and the Saver, 60, went with the name mapping); 5275 -> 5295:
    # tf.one_hot to a depth tensor (folded at bind or first computed when the graph runs),
    # tensordot's free sizes from tf.shape
    # 2026-11-27: TF 1.15's partitioned variables: the partitioners, PartitionedVariable,
    # its shards and their places (what the Saver writes as one tensor), counted apart
    "partitioned variables (frontend/partitioned_variables.py)": (
        ["frontend/partitioned_variables.py"], 230),
    # 5295 -> 5335: partitioner= on tf.get_variable and tf.variable_scope, a
    # PartitionedVariable in embedding_lookup and convert_to_tensor; 5335 -> 5350: TF-1
    # smoke tests: tf.numpy_function, tf.count_up_to, variable_scope's regularizer and
    # get_variable's dtype check on reuse, the meta graph keeping its Saver's names (SaverDef);
    # 5360 -> 5400: TF's autopacking (a list holding tensors converted by stacking them);
    # 5400 -> 5405: 2026-11-27: TFRecords: tf.train.Example's, tf.parse_*'s, tf.decode_csv's and
    # tf.read_file's names in tf., tf.train. and tf.io.; 5405 -> 5465: TF 1.15's default names
    # where its functions name their ops otherwise than their type (tf.divide's truediv,
    # clip_by_value, Relu6, L2Loss: their scopes), and get_variable's validate_shape, the
    # optimizers' ops in their name scope, and the composed functions' ops in TF's scopes
    # (moments, norm, tensordot, einsum, boolean_mask...); 5465 -> 5510: IndexedSlices through
    # the TF-1 surface: converted to dense where an op reads one, clip_by_norm / clip_by_value /
    # clip_by_global_norm / global_norm on its values (TF's), the optimizers' sparse path,
    # gather_dense for the compositions of TF ops whose gradient is dense (tf.slice,
    # tf.boolean_mask, sparse_ops, loops by time)
    # 5510 -> 5595: TF-1 smoke tests: get_variable's default initializer by dtype (zeros for
    # integers and booleans), the optimizers' gate_gradients, aggregation_method,
    # colocate_gradients_with_ops, grad_loss and get_name, VariableScope's set_initializer,
    # set_dtype and scope-filtered collections, a py_func's Python exception raised as the
    # tf.errors class TF's kernel makes of it, tf.colocate_with, tf.container (accepted: one
    # device), a tf.cond branch returning an operation (TF's pivot: a bool tensor run after it)
    # 5595 -> 5615: a py_func's string results as TF 1.15's FuncRegistry converts them (bytes,
    # a list's str UTF-8, an array's ASCII), and a one-item Tout list giving its output
    # 5615 -> 5630: 2026-11-27: tf.math.nextafter and tf.math's zero_fraction and
    # invert_permutation (tf_math.py); 5630 -> 5640: tf.strings and tf.lookup named in
    # tinyflow/__init__.py's re-exports; 5640 -> 5805: tf.switch_case (TF's checks, nested
    # tf.cond), tf.recompute_grad (a recompute scope), tf.get_variable's synchronization /
    # aggregation, tf.bitwise and tf.bitcast (tf_bitwise.py, TF's dtype checks),
    # tf.histogram_fixed_width_bins, tf.tensor_scatter_nd_max / min, and tinyflow's
    # __all__ of those names, one a line; 5805 -> 5900: 2026-11-27 (nn17): tf.nn's
    # collapse_repeated, ctc_unique_labels and ctc_beam_search_decoder beside the CTC loss
    # (nn/ctc.py)
    # 5900 -> 5905: unsupported()'s why (the Fourier transforms' complex results, said once
    # for tf.signal, tf.spectral and tf.contrib.signal); 5905 -> 5910: Adam on float64
    # variables, TF's float32 hyperparameters cast to them
    FRONT_END: ([], 5910),
}
FUNCTION_LIMIT = 60  # lines of a function, its docstring not counted


def count(path: Path) -> int:
    comment = {".lua": "--", ".c": ("/*", "*", "//")}.get(path.suffix, "#")
    return sum(1 for line in path.read_text().splitlines()
               if line.strip() and not line.strip().startswith(comment))


def budget() -> dict:
    """``{component: lines}``; every .py, .lua and .c file under tinyflow/ counts once."""
    every = set(ROOT.rglob("*.py")) | set(ROOT.rglob("*.lua")) | set(ROOT.rglob("*.c"))
    lines, claimed = {}, set()
    for name, (patterns, _) in COMPONENTS.items():
        files = {p for pattern in patterns for p in ROOT.glob(pattern)} - claimed
        claimed |= files
        lines[name] = sum(count(p) for p in (files if patterns else every - claimed))
    return lines


def long_functions(limit: int = FUNCTION_LIMIT) -> list[str]:
    """``file:line name (N lines)`` of every function in tinyflow/ longer than ``limit`` lines,
    not counting its docstring."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = node.end_lineno - node.lineno + 1
            doc = node.body[0]
            if ast.get_docstring(node) is not None:
                length -= doc.end_lineno - doc.lineno + 1
            if length > limit:
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name} "
                             f"({length} lines)")
    return found


def problems() -> list[str]:
    """Every way the engine is over its budget; empty when it is within."""
    lines = budget()
    found = [f"{name}: {lines[name]} lines, limit {limit}"
             for name, (_, limit) in COMPONENTS.items() if lines[name] > limit]
    return found + [f"function over {FUNCTION_LIMIT} lines: {f}" for f in long_functions()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when over budget")
    if parser.parse_args().check:
        found = problems()
        print("\n".join(found) or "within budget")
        sys.exit(1 if found else 0)
    lines = budget()
    print("| component | lines | limit |\n|---|---:|---:|")
    for name, (_, limit) in COMPONENTS.items():
        print(f"| {name} | {lines[name]} | {limit} |")
    print(f"| **total** | **{sum(lines.values())}** | |")


if __name__ == "__main__":
    main()
