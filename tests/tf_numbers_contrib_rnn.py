"""Numbers from real TensorFlow (tensorflow-cpu 2.21, tf.compat.v1 with TF_USE_LEGACY_KERAS=1,
graph mode: TF 1.15 semantics) for tests/test_contrib_rnn.py: outputs, final states, a loss and
its gradients of tf.contrib.rnn's cells, every variable set to ``weight(k, shape)`` (k: its index
in tf.trainable_variables()).  TensorFlow 2.21 has no tf.contrib: the script below runs TF 1.15's
contrib classes with their build and call as TF 1.15 wrote them (LSTMBlockCell on TF's own
LSTMBlockCell kernel, tf.raw_ops, with TF 1.15's gradient function registered as it was;
LSTMBlockFusedCell on TF's BlockLSTM kernel and its own gradient; LayerNormBasicLSTMCell, the
projection, embedding and attention wrappers on TF's ops), TF's own ResidualWrapper and
DeviceWrapper, and the stacked bidirectional RNNs as TF 1.15 wrote them on TF's own ones.
Produced by ``python ref.py block ...`` (each case prints one entry of REFERENCE, rounded to 6
decimals)::

    import os, sys; os.environ["TF_USE_LEGACY_KERAS"] = "1"; os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import math
    import numpy as np, tensorflow as tf1
    from tensorflow.python.ops import gen_rnn_ops
    tf = tf1.compat.v1; tf.disable_eager_execution()
    B, T, D, H = 3, 4, 2, 3
    xv = np.sin(np.arange(B * T * D) * 0.7).reshape(B, T, D).astype(np.float32)
    def weight(k, shape):
        return (np.cos(np.arange(int(np.prod(shape))) * 0.37 + k) * 0.5).reshape(shape).astype(np.float32)

    @tf.RegisterGradient("LSTMBlockCell")  # TF 1.15's contrib/rnn/python/ops/lstm_ops.py, as it is
    def _lstm_block_cell_grad(op, *grad):
        (x, cs_prev, h_prev, w, wci, wcf, wco, b) = op.inputs
        (i, cs, f, o, ci, co, _) = op.outputs
        (_, cs_grad, _, _, _, _, h_grad) = grad
        input_size, cell_size = x.get_shape()[1], cs_prev.get_shape()[1]
        (cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad) = gen_rnn_ops.lstm_block_cell_grad(
            x=x, cs_prev=cs_prev, h_prev=h_prev, w=w, wci=wci, wcf=wcf, wco=wco, b=b, i=i, cs=cs,
            f=f, o=o, ci=ci, co=co, cs_grad=cs_grad, h_grad=h_grad, use_peephole=op.get_attr("use_peephole"))
        xh_grad = tf.matmul(dicfo, w, transpose_b=True)
        x_grad = tf.slice(xh_grad, (0, 0), (-1, input_size))
        h_prev_grad = tf.slice(xh_grad, (0, input_size), (-1, cell_size))
        w_grad = tf.matmul(tf.concat([x, h_prev], 1), dicfo, transpose_a=True)
        b_grad = tf.reduce_sum(dicfo, 0)
        return (x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad)

    class LSTMBlockCell(tf.nn.rnn_cell.RNNCell):  # TF 1.15's contrib LSTMBlockCell's build and call
        def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False):
            super().__init__(name="lstm_cell")
            self._num_units, self._forget_bias, self._use_peephole = num_units, forget_bias, use_peephole
            self._cell_clip = cell_clip if cell_clip is not None else -1
        state_size = property(lambda self: tf.nn.rnn_cell.LSTMStateTuple(self._num_units, self._num_units))
        output_size = property(lambda self: self._num_units)
        def build(self, inputs_shape):
            n = self._num_units
            self._kernel = self.add_variable("kernel", [inputs_shape[1] + n, n * 4])
            self._bias = self.add_variable("bias", [n * 4], initializer=tf.constant_initializer(0.0))
            if self._use_peephole:
                self._w_i_diag = self.add_variable("w_i_diag", [n])
                self._w_f_diag = self.add_variable("w_f_diag", [n])
                self._w_o_diag = self.add_variable("w_o_diag", [n])
            self.built = True
        def call(self, inputs, state):
            if self._use_peephole:
                wci, wcf, wco = self._w_i_diag, self._w_f_diag, self._w_o_diag
            else:
                wci = wcf = wco = tf.zeros([self._num_units])
            cs_prev, h_prev = state
            out = tf.raw_ops.LSTMBlockCell(x=inputs, cs_prev=cs_prev, h_prev=h_prev, w=self._kernel, wci=wci, wcf=wcf, wco=wco, b=self._bias, forget_bias=self._forget_bias, cell_clip=self._cell_clip, use_peephole=self._use_peephole)
            return out.h, tf.nn.rnn_cell.LSTMStateTuple(out.cs, out.h)

    # BlockLSTM's gradient is TF's own (tensorflow/python/ops/rnn_grad.py)
    class LSTMBlockFusedCell(tf.layers.Layer):  # TF 1.15's LSTMBlockWrapper.call and LSTMBlockFusedCell
        def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False):
            super().__init__(name="lstm_fused_cell")
            self._num_units, self._forget_bias, self._use_peephole = num_units, forget_bias, use_peephole
            self._cell_clip = cell_clip if cell_clip is not None else -1
        def build(self, input_shape):
            n = self._num_units
            self._kernel = self.add_variable("kernel", [input_shape[2] + n, n * 4])
            self._bias = self.add_variable("bias", [n * 4], initializer=tf.constant_initializer(0.0))
            if self._use_peephole:
                self._w_i_diag = self.add_variable("w_i_diag", [n])
                self._w_f_diag = self.add_variable("w_f_diag", [n])
                self._w_o_diag = self.add_variable("w_o_diag", [n])
            self.built = True
        def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
            is_list = isinstance(inputs, list)
            if is_list:
                inputs = tf.stack(inputs)
            batch_size, time_len = inputs.get_shape()[1], inputs.get_shape()[0]
            if initial_state is None:
                z = tf.zeros(tf.stack([batch_size, self._num_units]), dtype=dtype)
                initial_state = z, z
            c0, h0 = initial_state
            dtype = dtype or c0.dtype
            if self._use_peephole:
                wci, wco, wcf = self._w_i_diag, self._w_o_diag, self._w_f_diag
            else:
                wci = wcf = wco = tf.zeros([self._num_units], dtype=dtype)
            max_len = tf.cast(time_len if sequence_length is None else tf.reduce_max(sequence_length), tf.int64)
            _, cs, _, _, _, _, h = tf.raw_ops.BlockLSTM(seq_len_max=max_len, x=inputs, cs_prev=c0, h_prev=h0,
                w=self._kernel, wci=wci, wcf=wcf, wco=wco, b=self._bias, forget_bias=self._forget_bias,
                cell_clip=self._cell_clip, use_peephole=self._use_peephole)
            outputs = h
            if sequence_length is not None:
                mask = tf.transpose(tf.sequence_mask(sequence_length, time_len, dtype=dtype), [1, 0])
                outputs *= tf.tile(tf.expand_dims(mask, [-1]), [1, 1, self._num_units])
                gather = lambda data: tf.gather_nd(data, tf.stack([sequence_length, tf.range(batch_size)], axis=1))
                final_c = gather(tf.concat([tf.expand_dims(c0, [0]), cs], 0))
                final_h = gather(tf.concat([tf.expand_dims(h0, [0]), outputs], 0))
            else:
                final_c, final_h = cs[-1], outputs[-1]
            if is_list:
                outputs = tf.unstack(outputs)
            return outputs, tf.nn.rnn_cell.LSTMStateTuple(final_c, final_h)

    def layer_norm(inputs, scope):  # TF 1.15's contrib.layers.layer_norm, reuse=True, 2-D inputs
        with tf.variable_scope(scope, reuse=True):
            beta, gamma = tf.get_variable("beta"), tf.get_variable("gamma")
            mean, variance = tf.nn.moments(inputs, [1], keep_dims=True)
            return tf.nn.batch_normalization(inputs, mean, variance, offset=beta, scale=gamma, variance_epsilon=1e-12)

    class LayerNormBasicLSTMCell(tf.nn.rnn_cell.RNNCell):  # TF 1.15's contrib/rnn/python/ops/rnn_cell.py
        def __init__(self, num_units, forget_bias=1.0, layer_norm=True, norm_gain=1.0, norm_shift=0.0):
            super().__init__()
            self._num_units, self._forget_bias, self._layer_norm = num_units, forget_bias, layer_norm
            self._g, self._b = norm_gain, norm_shift
        state_size = property(lambda self: tf.nn.rnn_cell.LSTMStateTuple(self._num_units, self._num_units))
        output_size = property(lambda self: self._num_units)
        def _norm(self, inp, scope):
            shape = inp.get_shape()[-1:]
            with tf.variable_scope(scope):
                tf.get_variable("gamma", shape=shape, initializer=tf.constant_initializer(self._g))
                tf.get_variable("beta", shape=shape, initializer=tf.constant_initializer(self._b))
            return layer_norm(inp, scope)
        def _linear(self, args):
            out = tf.matmul(args, tf.get_variable("kernel", [args.get_shape()[-1], 4 * self._num_units]))
            if not self._layer_norm:
                out = tf.nn.bias_add(out, tf.get_variable("bias", [4 * self._num_units]))
            return out
        def call(self, inputs, state):
            c, h = state
            i, j, f, o = tf.split(self._linear(tf.concat([inputs, h], 1)), 4, axis=1)
            if self._layer_norm:
                i, j, f, o = (self._norm(i, "input"), self._norm(j, "transform"), self._norm(f, "forget"), self._norm(o, "output"))
            new_c = c * tf.sigmoid(f + self._forget_bias) + tf.sigmoid(i) * tf.tanh(j)
            if self._layer_norm:
                new_c = self._norm(new_c, "state")
            new_h = tf.tanh(new_c) * tf.sigmoid(o)
            return new_h, tf.nn.rnn_cell.LSTMStateTuple(new_c, new_h)

    def linear(x, size):  # TF 1.15's rnn_cell_impl._Linear(x, size, True)
        kernel = tf.get_variable("kernel", [x.get_shape()[1], size])
        return tf.nn.bias_add(tf.matmul(x, kernel), tf.get_variable("bias", [size], initializer=tf.constant_initializer(0.0)))

    class OutputProjectionWrapper(tf.nn.rnn_cell.RNNCell):  # TF 1.15's contrib core_rnn_cell.py
        def __init__(self, cell, output_size):
            super().__init__(); self._cell, self._size = cell, output_size
        state_size = property(lambda self: self._cell.state_size)
        output_size = property(lambda self: self._size)
        def call(self, inputs, state):
            output, res_state = self._cell(inputs, state)
            return linear(output, self._size), res_state

    class InputProjectionWrapper(tf.nn.rnn_cell.RNNCell):  # TF 1.15's contrib core_rnn_cell.py
        def __init__(self, cell, num_proj, activation=None):
            super().__init__(); self._cell, self._size, self._act = cell, num_proj, activation
        state_size = property(lambda self: self._cell.state_size)
        output_size = property(lambda self: self._cell.output_size)
        def call(self, inputs, state):
            projected = linear(inputs, self._size)
            return self._cell(self._act(projected) if self._act else projected, state)

    class AttentionCellWrapper(tf.nn.rnn_cell.RNNCell):  # TF 1.15's contrib/rnn/python/ops/rnn_cell.py
        def __init__(self, cell, attn_length, attn_size=None, attn_vec_size=None, input_size=None, state_is_tuple=True):
            super().__init__()
            attn_size = attn_size or cell.output_size
            self._cell, self._attn_length, self._attn_size = cell, attn_length, attn_size
            self._attn_vec_size, self._input_size, self._state_is_tuple = attn_vec_size or attn_size, input_size, state_is_tuple
        @property
        def state_size(self):
            size = (self._cell.state_size, self._attn_size, self._attn_size * self._attn_length)
            return size if self._state_is_tuple else sum(list(size))
        output_size = property(lambda self: self._attn_size)
        def call(self, inputs, state):
            if self._state_is_tuple:
                state, attns, attn_states = state
            else:
                states = state
                state = tf.slice(states, [0, 0], [-1, self._cell.state_size])
                attns = tf.slice(states, [0, self._cell.state_size], [-1, self._attn_size])
                attn_states = tf.slice(states, [0, self._cell.state_size + self._attn_size], [-1, self._attn_size * self._attn_length])
            attn_states = tf.reshape(attn_states, [-1, self._attn_length, self._attn_size])
            input_size = self._input_size or inputs.get_shape().as_list()[1]
            inputs = linear(tf.concat([inputs, attns], 1), input_size)
            cell_output, new_state = self._cell(inputs, state)
            new_state_cat = tf.concat(tf.nest.flatten(new_state), 1) if self._state_is_tuple else new_state
            new_attns, new_attn_states = self._attention(new_state_cat, attn_states)
            with tf.variable_scope("attn_output_projection"):
                output = linear(tf.concat([cell_output, new_attns], 1), self._attn_size)
            new_attn_states = tf.concat([new_attn_states, tf.expand_dims(output, 1)], 1)
            new_attn_states = tf.reshape(new_attn_states, [-1, self._attn_length * self._attn_size])
            new_state = (new_state, new_attns, new_attn_states)
            if not self._state_is_tuple:
                new_state = tf.concat(list(new_state), 1)
            return output, new_state
        def _attention(self, query, attn_states):
            with tf.variable_scope("attention"):
                k = tf.get_variable("attn_w", [1, 1, self._attn_size, self._attn_vec_size])
                v = tf.get_variable("attn_v", [self._attn_vec_size])
                hidden = tf.reshape(attn_states, [-1, self._attn_length, 1, self._attn_size])
                hidden_features = tf.nn.conv2d(hidden, k, [1, 1, 1, 1], "SAME")
                y = tf.reshape(linear(query, self._attn_vec_size), [-1, 1, 1, self._attn_vec_size])
                s = tf.reduce_sum(v * tf.tanh(hidden_features + y), [2, 3])
                a = tf.nn.softmax(s)
                d = tf.reduce_sum(tf.reshape(a, [-1, self._attn_length, 1, 1]) * hidden, [1, 2])
                return tf.reshape(d, [-1, self._attn_size]), tf.slice(attn_states, [0, 1, 0], [-1, -1, -1])

    class EmbeddingWrapper(tf.nn.rnn_cell.RNNCell):  # TF 1.15's contrib core_rnn_cell.py
        def __init__(self, cell, classes, size):
            super().__init__(); self._cell, self._classes, self._size = cell, classes, size
        state_size = property(lambda self: self._cell.state_size)
        output_size = property(lambda self: self._cell.output_size)
        def call(self, inputs, state):
            s3 = math.sqrt(3)
            embedding = tf.get_variable("embedding", [self._classes, self._size], initializer=tf.random_uniform_initializer(-s3, s3))
            return self._cell(tf.nn.embedding_lookup(embedding, tf.reshape(inputs, [-1])), state)

    def loss_of(outs, states):
        total = 0
        for i, o in enumerate(outs):
            total += tf.reduce_sum(o * np.cos(np.arange(int(np.prod(o.get_shape().as_list()))) * 0.5 + i).reshape(o.get_shape().as_list()).astype(np.float32))
        for i, s in enumerate(states):
            total += tf.reduce_sum(s * (0.5 + i))
        return total

    def case(name, build):
        g = tf.Graph()
        with g.as_default():
            ids = name == "embedding"
            x = tf.placeholder(tf.int32 if ids else tf.float32, [B, T] if ids else [B, T, D])
            outs, states = build(x)
            outs, states = tf.nest.flatten(outs), tf.nest.flatten(states)
            loss = loss_of(outs, states)
            vs = tf.trainable_variables()
            grads = tf.gradients(loss, vs + ([] if ids else [x]))
            grads = [tf.convert_to_tensor(g) for g in grads]
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                for k, v in enumerate(vs):
                    v.load(weight(k, v.get_shape().as_list()), s)
                r = s.run([outs, states, loss, grads], {x: (np.arange(B * T).reshape(B, T) * 3) % 5 if ids else xv})
            rnd = lambda a: np.round(np.asarray(a, np.float64), 6).tolist()
            print(f"    {name!r}: {{")
            print(f"        'variables': {[v.name for v in vs]!r},")
            print(f"        'loss': {round(float(r[2]), 6)!r},")
            print(f"        'outputs': {[rnd(o) for o in r[0]]!r},")
            print(f"        'states': {[rnd(o) for o in r[1]]!r},")
            print(f"        'grads': {[rnd(o) for o in r[3]]!r}}},")

    def block(x):
        return tf.nn.static_rnn(LSTMBlockCell(H), tf.unstack(x, T, 1), dtype=tf.float32)
    def block_peephole_clip(x):
        return tf.nn.dynamic_rnn(LSTMBlockCell(H, forget_bias=0.5, cell_clip=0.3, use_peephole=True), x, sequence_length=[4, 2, 3], dtype=tf.float32)
    def layer_norm_lstm(x):
        return tf.nn.dynamic_rnn(LayerNormBasicLSTMCell(H, norm_gain=0.9, norm_shift=0.1), x, dtype=tf.float32)
    def no_norm_lstm(x):
        return tf.nn.static_rnn(LayerNormBasicLSTMCell(H, layer_norm=False), tf.unstack(x, T, 1), dtype=tf.float32)
    def output_projection(x):
        return tf.nn.static_rnn(OutputProjectionWrapper(tf.nn.rnn_cell.BasicLSTMCell(H), 2), tf.unstack(x, T, 1), dtype=tf.float32)
    def residual_input_projection(x):
        cell = tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.DeviceWrapper(InputProjectionWrapper(tf.nn.rnn_cell.BasicRNNCell(D), 3, tf.tanh), "/cpu:0"))
        return tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 1, 3], dtype=tf.float32)
    def embedding(x):
        return tf.nn.static_rnn(EmbeddingWrapper(tf.nn.rnn_cell.GRUCell(H), 5, 2), tf.unstack(x, T, 1), dtype=tf.float32)
    def fused(x):
        return LSTMBlockFusedCell(H)(tf.transpose(x, [1, 0, 2]), dtype=tf.float32)
    def fused_peephole_clip_lengths(x):
        c0 = tf.constant(np.linspace(-0.5, 0.5, B * H).reshape(B, H).astype(np.float32))
        return LSTMBlockFusedCell(H, forget_bias=0.7, cell_clip=0.25, use_peephole=True)(
            tf.transpose(x, [1, 0, 2]), initial_state=(c0, c0 * 0.5), sequence_length=tf.constant([4, 1, 0]))
    def attention(x):
        cell = AttentionCellWrapper(tf.nn.rnn_cell.BasicLSTMCell(H), 2)
        return tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 3, 2], dtype=tf.float32)
    def attention_concat(x):
        cell = AttentionCellWrapper(tf.nn.rnn_cell.GRUCell(H), 3, attn_size=2, attn_vec_size=5, input_size=4, state_is_tuple=False)
        return tf.nn.static_rnn(cell, tf.unstack(x, T, 1), dtype=tf.float32)
    def stack_bidirectional_rnn(cells_fw, cells_bw, inputs, dtype=None, sequence_length=None):
        # TF 1.15's contrib/rnn/python/ops/rnn.py (no initial states, as here)
        states_fw, states_bw, prev_layer = [], [], inputs
        with tf.variable_scope("stack_bidirectional_rnn"):
            for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
                with tf.variable_scope("cell_%d" % i) as cell_scope:
                    prev_layer, state_fw, state_bw = tf.nn.static_bidirectional_rnn(
                        cell_fw, cell_bw, prev_layer, sequence_length=sequence_length, dtype=dtype, scope=cell_scope)
                states_fw.append(state_fw); states_bw.append(state_bw)
        return prev_layer, tuple(states_fw), tuple(states_bw)
    def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, dtype=None, sequence_length=None):
        # TF 1.15's contrib/rnn/python/ops/rnn.py (no initial states, as here)
        states_fw, states_bw, prev_layer = [], [], inputs
        with tf.variable_scope("stack_bidirectional_rnn"):
            for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
                with tf.variable_scope("cell_%d" % i):
                    outputs, (state_fw, state_bw) = tf.nn.bidirectional_dynamic_rnn(
                        cell_fw, cell_bw, prev_layer, sequence_length=sequence_length, dtype=dtype)
                    prev_layer = tf.concat(outputs, 2)
                states_fw.append(state_fw); states_bw.append(state_bw)
        return prev_layer, tuple(states_fw), tuple(states_bw)
    def stack_static(x):
        outputs, fw, bw = stack_bidirectional_rnn([tf.nn.rnn_cell.GRUCell(H), tf.nn.rnn_cell.BasicRNNCell(2)], [tf.nn.rnn_cell.BasicLSTMCell(H), tf.nn.rnn_cell.GRUCell(2)], tf.unstack(x, T, 1), dtype=tf.float32, sequence_length=[4, 2, 3])
        return outputs, (fw, bw)
    def stack_dynamic(x):
        outputs, fw, bw = stack_bidirectional_dynamic_rnn([tf.nn.rnn_cell.BasicLSTMCell(H), tf.nn.rnn_cell.GRUCell(2)], [tf.nn.rnn_cell.GRUCell(H), tf.nn.rnn_cell.BasicRNNCell(2)], x, dtype=tf.float32, sequence_length=[4, 2, 3])
        return outputs, (fw, bw)
    for n in sys.argv[1:]:
        case(n, globals()[n])
"""

REFERENCE = {
    'block': {
        'variables': ['rnn/lstm_cell/kernel:0', 'rnn/lstm_cell/bias:0'],
        'loss': -3.794492,
        'outputs': [[[-0.004366, -0.023587, -0.039551], [-0.095383, -0.099144, -0.090217], [-0.156139, -0.153094, -0.133304]], [[0.057314, -0.000822, -0.065136], [0.013133, -0.018822, -0.054172], [-0.084642, -0.093035, -0.095927]], [[-0.051729, -0.138484, -0.210073], [0.012496, -0.067183, -0.141407], [0.019767, -0.032185, -0.090321]], [[-0.219123, -0.284132, -0.327119], [-0.154532, -0.23206, -0.29104], [-0.079055, -0.161678, -0.229737]]],
        'states': [[[-0.405218, -0.475356, -0.513889], [-0.315126, -0.418583, -0.480734], [-0.188473, -0.340506, -0.433418]], [[-0.219123, -0.284132, -0.327119], [-0.154532, -0.23206, -0.29104], [-0.079055, -0.161678, -0.229737]]],
        'grads': [[[0.086035, 0.01382, 0.06022, 0.832796, 0.989819, 1.41497, 0.002293, 0.010728, -0.044471, -0.01322, 0.026214, -0.00546], [0.313592, 0.365008, 0.426252, -0.092536, 0.141175, 1.151914, -0.010815, 0.07327, 0.071476, 0.166408, 0.258272, 0.2286], [-0.001305, -0.000974, 0.008204, 0.001787, -0.044255, -0.216371, 0.003209, 0.006234, 0.018519, -0.008136, -0.006196, 0.016937], [0.030807, 0.042476, 0.062589, -0.101157, -0.1296, -0.30772, 0.00298, 0.017459, 0.040999, 0.008952, 0.01799, 0.050192], [0.061024, 0.083916, 0.11426, -0.205012, -0.212246, -0.378021, 0.002299, 0.027474, 0.06064, 0.026311, 0.041925, 0.080677]], [-0.301338, -0.501274, -1.055688, 2.135867, 1.927459, 3.888259, 0.001648, -0.196767, -0.486421, -0.121645, -0.190882, -0.559653], [[[0.06319, 0.316974], [0.039455, 0.083128], [-0.069883, 0.064894], [-0.020802, 0.178075]], [[0.011781, -0.139019], [-0.097135, -0.001975], [-0.081966, 0.404062], [0.017844, 0.431253]], [[-0.101722, -0.081927], [-0.120298, 0.429577], [0.095247, 0.914541], [0.147458, 0.83149]]]]},
    'block_peephole_clip': {
        'variables': ['rnn/lstm_cell/kernel:0', 'rnn/lstm_cell/bias:0', 'rnn/lstm_cell/w_i_diag:0', 'rnn/lstm_cell/w_f_diag:0', 'rnn/lstm_cell/w_o_diag:0'],
        'loss': -2.019904,
        'outputs': [[[[-0.004373, -0.02369, -0.039529], [0.055724, 0.001408, -0.061989], [-0.061374, -0.140199, -0.162622], [-0.171686, -0.188734, -0.199472]], [[-0.098032, -0.100428, -0.090138], [0.02072, -0.01097, -0.047519], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[-0.16235, -0.155527, -0.133175], [-0.075609, -0.084277, -0.087314], [0.030986, -0.020741, -0.080396], [0.0, 0.0, 0.0]]]],
        'states': [[[-0.3, -0.3, -0.3], [0.054055, -0.027621, -0.114194], [0.090637, -0.055882, -0.200493]], [[-0.171686, -0.188734, -0.199472], [0.02072, -0.01097, -0.047519], [0.030986, -0.020741, -0.080396]]],
        'grads': [[[0.433389, 0.401763, 0.361612, 0.299945, 0.264453, 0.268903, -0.0252, 0.036666, 0.035321, 0.177891, 0.180343, 0.204563], [0.391875, 0.38171, 0.372698, 1.033646, 0.752738, 0.826636, -0.058817, 0.027757, 0.060653, 0.135146, 0.10029, 0.120676], [0.001071, 0.010742, 0.013441, -0.161988, -0.131414, -0.131459, 0.015822, 0.01632, 0.015159, 0.005417, 0.01199, 0.016067], [0.017802, 0.035712, 0.047867, -0.195824, -0.170805, -0.188299, 0.019085, 0.025358, 0.028332, 0.010119, 0.016848, 0.025321], [0.023982, 0.045963, 0.06649, -0.197111, -0.180726, -0.213572, 0.018475, 0.027091, 0.033533, 0.009628, 0.014229, 0.025963]], [-0.28599, -0.501322, -0.847079, 2.733492, 2.436929, 3.257344, -0.153081, -0.203659, -0.275456, -0.074876, -0.121023, -0.276581], [0.006427, 0.073728, 0.129975], [0.031044, 0.049775, 0.062997], [0.040814, 0.026638, 0.061575], [[[0.028563, 0.32235], [-0.031546, 0.130487], [-0.170368, 0.229191], [-0.05138, 0.360762]], [[-0.064859, 0.558694], [0.207111, 0.772425], [0.0, 0.0], [0.0, 0.0]], [[-0.076447, 0.280211], [0.058964, 0.27817], [0.119281, 0.565998], [0.0, 0.0]]]]},
    'layer_norm_lstm': {
        'variables': ['rnn/layer_norm_basic_lstm_cell/kernel:0', 'rnn/layer_norm_basic_lstm_cell/input/gamma:0', 'rnn/layer_norm_basic_lstm_cell/input/beta:0', 'rnn/layer_norm_basic_lstm_cell/transform/gamma:0', 'rnn/layer_norm_basic_lstm_cell/transform/beta:0', 'rnn/layer_norm_basic_lstm_cell/forget/gamma:0', 'rnn/layer_norm_basic_lstm_cell/forget/beta:0', 'rnn/layer_norm_basic_lstm_cell/output/gamma:0', 'rnn/layer_norm_basic_lstm_cell/output/beta:0', 'rnn/layer_norm_basic_lstm_cell/state/gamma:0', 'rnn/layer_norm_basic_lstm_cell/state/beta:0'],
        'loss': -2.96698,
        'outputs': [[[[-0.470677, 0.03063, 0.07659], [0.12419, -0.180188, -0.210229], [-0.288909, 0.021367, 0.091478], [0.079098, -0.271323, -0.163807]], [[-0.449386, -0.084611, 0.146937], [0.087199, -0.125874, -0.236073], [-0.310766, 0.077726, 0.028182], [0.081097, -0.243966, -0.189193]], [[-0.276172, -0.133161, 0.169332], [0.011688, -0.036998, -0.253932], [-0.308578, -0.272496, 0.185826], [-0.02918, 0.013957, -0.280765]]]],
        'states': [[[0.222438, -0.696087, -0.412264], [0.224282, -0.622757, -0.484011], [-0.073891, 0.033832, -0.798054]], [[0.079098, -0.271323, -0.163807], [0.081097, -0.243966, -0.189193], [-0.02918, 0.013957, -0.280765]]],
        'grads': [[[0.236506, -0.172412, -0.064095, 1.055512, -0.9371, -0.118413, -0.151561, 0.333858, -0.182297, 1.53199, 0.364324, -1.896316], [0.223326, -0.198961, -0.024365, -0.215021, 1.493523, -1.278502, 0.021193, -0.014214, -0.006979, 0.292041, 1.603483, -1.895526], [0.096753, -0.053278, -0.043476, -0.478116, 1.158282, -0.680165, -0.018708, 0.034012, -0.015304, 0.07693, 0.034761, -0.111692], [0.017678, -0.0184, 0.000722, 0.244871, -1.035689, 0.790819, 0.044054, -0.089058, 0.045004, -0.132557, 0.147067, -0.01451], [-0.130382, 0.093264, 0.037118, 0.344436, -1.257971, 0.913536, 0.05323, -0.107582, 0.054352, -0.339503, 0.254983, 0.08452]], [-0.103901, -0.020416, -0.443434], [0.125949, 0.149302, -0.17654], [-0.537054, -0.002662, 0.592596], [0.302952, -1.426053, 0.996133], [0.028559, -0.010706, 0.071201], [0.019854, 0.067764, -0.139798], [-0.653492, -0.246569, -1.139282], [0.033984, -0.421285, -0.495911], [-3.045287, 0.105008, 3.824106], [2.488541, 3.108387, 3.303828], [[[0.540521, 0.0], [0.009557, -0.012525], [0.553824, -0.040722], [0.084356, -0.056332]], [[0.001919, 0.072048], [0.029573, -0.024177], [-0.042039, 0.154927], [-0.010878, -9e-05]], [[0.165524, -0.262204], [0.005315, -0.001783], [-0.066383, 0.081776], [-0.009599, 0.038571]]]]},
    'no_norm_lstm': {
        'variables': ['rnn/layer_norm_basic_lstm_cell/kernel:0', 'rnn/layer_norm_basic_lstm_cell/bias:0'],
        'loss': -3.794492,
        'outputs': [[[-0.004366, -0.023587, -0.039551], [-0.095383, -0.099144, -0.090217], [-0.156139, -0.153094, -0.133304]], [[0.057314, -0.000822, -0.065136], [0.013133, -0.018822, -0.054172], [-0.084642, -0.093035, -0.095927]], [[-0.051729, -0.138484, -0.210073], [0.012496, -0.067183, -0.141407], [0.019767, -0.032185, -0.090321]], [[-0.219123, -0.284132, -0.327119], [-0.154532, -0.23206, -0.29104], [-0.079055, -0.161678, -0.229737]]],
        'states': [[[-0.405218, -0.475356, -0.513889], [-0.315126, -0.418583, -0.480734], [-0.188473, -0.340506, -0.433418]], [[-0.219123, -0.284132, -0.327119], [-0.154532, -0.23206, -0.29104], [-0.079055, -0.161678, -0.229737]]],
        'grads': [[[0.086035, 0.01382, 0.06022, 0.832796, 0.989819, 1.41497, 0.002293, 0.010728, -0.044471, -0.01322, 0.026214, -0.00546], [0.313593, 0.365008, 0.426252, -0.092537, 0.141175, 1.151914, -0.010815, 0.07327, 0.071476, 0.166408, 0.258272, 0.2286], [-0.001305, -0.000974, 0.008204, 0.001787, -0.044255, -0.216371, 0.003209, 0.006234, 0.018519, -0.008136, -0.006196, 0.016937], [0.030807, 0.042476, 0.062589, -0.101157, -0.1296, -0.30772, 0.00298, 0.017459, 0.040999, 0.008952, 0.01799, 0.050192], [0.061024, 0.083916, 0.11426, -0.205012, -0.212246, -0.378021, 0.002299, 0.027474, 0.06064, 0.026311, 0.041925, 0.080677]], [-0.301338, -0.501274, -1.055688, 2.135867, 1.927459, 3.88826, 0.001648, -0.196767, -0.486421, -0.121645, -0.190882, -0.559653], [[[0.06319, 0.316974], [0.039455, 0.083128], [-0.069883, 0.064894], [-0.020802, 0.178075]], [[0.011781, -0.139019], [-0.097135, -0.001975], [-0.081966, 0.404062], [0.017844, 0.431253]], [[-0.101722, -0.081927], [-0.120298, 0.429577], [0.095247, 0.914541], [0.147458, 0.831491]]]]},
    'output_projection': {
        'variables': ['rnn/output_projection_wrapper/basic_lstm_cell/kernel:0', 'rnn/output_projection_wrapper/basic_lstm_cell/bias:0', 'rnn/output_projection_wrapper/kernel:0', 'rnn/output_projection_wrapper/bias:0'],
        'loss': -2.729299,
        'outputs': [[[-0.464579, -0.458645], [-0.386971, -0.369026], [-0.329179, -0.30393]], [[-0.475822, -0.482412], [-0.463517, -0.461746], [-0.389325, -0.373761]], [[-0.32142, -0.319502], [-0.399984, -0.404226], [-0.441698, -0.443719]], [[-0.164356, -0.142278], [-0.218777, -0.20515], [-0.295786, -0.290651]]],
        'states': [[[-0.405218, -0.475356, -0.513889], [-0.315126, -0.418583, -0.480734], [-0.188473, -0.340506, -0.433418]], [[-0.219123, -0.284132, -0.327119], [-0.154532, -0.23206, -0.29104], [-0.079055, -0.161678, -0.229737]]],
        'grads': [[[0.372046, 0.318942, 0.207667, 0.905159, 1.212062, 1.696735, 0.022952, 0.05492, -0.022875, 0.171474, 0.218119, 0.099012], [0.596693, 0.689087, 0.575978, -0.167811, 0.245081, 1.672937, -0.033841, 0.093992, 0.112251, 0.30919, 0.435236, 0.338722], [-0.000565, -0.001508, 0.001032, -0.053941, -0.087612, -0.198346, 0.012193, 0.014552, 0.017638, 0.008713, 0.011587, 0.019971], [0.046041, 0.063062, 0.074082, -0.197049, -0.220327, -0.33169, 0.012333, 0.031069, 0.046949, 0.03895, 0.054045, 0.069809], [0.089185, 0.123815, 0.143666, -0.331135, -0.340675, -0.439766, 0.010772, 0.044642, 0.072626, 0.065693, 0.092042, 0.114636]], [-0.585716, -0.967772, -1.554313, 3.339679, 3.51843, 5.802588, -0.040677, -0.298669, -0.582462, -0.37978, -0.557846, -0.935405], [[0.410121, 0.394631], [0.618337, 0.578144], [0.784861, 0.718963]], [-3.161438, -3.906665], [[[-0.072081, 0.01198], [-0.011521, 0.533331], [-0.094343, 0.637342], [0.079784, 0.393256]], [[-0.112785, 0.189604], [0.026459, 0.672022], [0.030279, 0.836871], [0.033123, 0.448441]], [[-0.136476, 0.251559], [0.046848, 0.529513], [0.066268, 0.545465], [0.058212, 0.510224]]]]},
    'residual_input_projection': {
        'variables': ['rnn/input_projection_wrapper/kernel:0', 'rnn/input_projection_wrapper/bias:0', 'rnn/input_projection_wrapper/basic_rnn_cell/kernel:0', 'rnn/input_projection_wrapper/basic_rnn_cell/bias:0'],
        'loss': 2.892206,
        'outputs': [[[[-0.504003, 0.088705], [0.259524, 0.026147], [-0.234959, -1.094894], [-0.966674, -1.243748]], [[-0.878463, -0.236573], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[-1.070785, -0.667784], [-0.47041, 0.095616], [0.262494, 0.006514], [0.0, 0.0]]]],
        'states': [[[-0.095098, -0.261296], [-0.247197, -0.253387], [-0.728113, -0.839233]]],
        'grads': [[[-0.347695, -0.558357, -0.50748], [-0.435848, -0.710032, -0.640541]], [0.580499, 0.925183, 0.797162], [[0.203798, 0.241304], [0.193462, 0.277329], [0.146138, 0.289378], [0.406615, 0.619287], [0.480829, 0.710798]], [-0.592901, -1.519511], [[[0.350215, 0.855518], [0.442525, 0.078759], [-0.103155, -0.784567], [-0.575195, -0.920951]], [[-0.729596, -0.224342], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.256762, -0.563625], [-0.257812, -0.974491], [-0.78305, -0.479937], [0.0, 0.0]]]]},
    'embedding': {
        'variables': ['rnn/embedding_wrapper/embedding:0', 'rnn/embedding_wrapper/gru_cell/gates/kernel:0', 'rnn/embedding_wrapper/gru_cell/gates/bias:0', 'rnn/embedding_wrapper/gru_cell/candidate/kernel:0', 'rnn/embedding_wrapper/gru_cell/candidate/bias:0'],
        'loss': -0.655907,
        'outputs': [[[-0.408559, -0.287395, -0.100627], [-0.186124, -0.106818, -0.008694], [0.031747, 0.072444, 0.10101]], [[-0.263236, -0.17451, -0.050762], [-0.490038, -0.350102, -0.13368], [-0.159835, -0.067145, 0.038257]], [[-0.462597, -0.335277, -0.1408], [-0.308048, -0.213969, -0.078015], [-0.476673, -0.331121, -0.111457]], [[-0.234036, -0.150524, -0.037179], [-0.484031, -0.356523, -0.158496], [-0.298377, -0.2026, -0.066055]]],
        'states': [[[-0.234036, -0.150524, -0.037179], [-0.484031, -0.356523, -0.158496], [-0.298377, -0.2026, -0.066055]]],
        'grads': [[[-0.84163, -0.161788], [0.168386, 0.079317], [0.273451, 0.079087], [-0.607785, -0.109409], [0.680694, 0.211318]], [[0.002023, 0.004855, -0.000442, 0.044658, 0.03559, 0.021374], [0.009321, 0.00941, -0.00023, 0.056653, 0.041601, 0.017575], [0.023156, 0.014344, -0.000939, 0.014699, 0.002776, -0.003459], [0.015068, 0.009696, -0.000789, 0.012071, 0.007218, 0.001278], [0.003494, 0.002715, -0.000497, 0.006683, 0.010049, 0.005736]], [-0.043583, -0.015972, 0.00026, 0.07003, 0.096171, 0.081252], [[0.308696, 0.382609, 0.298857], [0.294181, 0.375271, 0.251272], [-0.027957, -0.043402, -0.111401], [-0.009921, -0.009163, -0.04919], [0.00975, 0.023049, 0.012923]], [-0.134899, 0.084048, 0.591862]]},
    'fused': {
        'variables': ['lstm_fused_cell/kernel:0', 'lstm_fused_cell/bias:0'],
        'loss': -3.561898,
        'outputs': [[[[-0.004366, -0.023587, -0.039551], [-0.095383, -0.099144, -0.090217], [-0.156139, -0.153094, -0.133304]], [[0.057314, -0.000822, -0.065136], [0.013133, -0.018822, -0.054172], [-0.084642, -0.093035, -0.095927]], [[-0.051729, -0.138484, -0.210073], [0.012496, -0.067183, -0.141407], [0.019767, -0.032185, -0.090321]], [[-0.219123, -0.284132, -0.327119], [-0.154532, -0.23206, -0.29104], [-0.079055, -0.161678, -0.229737]]]],
        'states': [[[-0.405218, -0.475356, -0.513889], [-0.315126, -0.418583, -0.480734], [-0.188473, -0.340506, -0.433418]], [[-0.219123, -0.284132, -0.327119], [-0.154532, -0.23206, -0.29104], [-0.079055, -0.161678, -0.229737]]],
        'grads': [[[0.272678, 0.11801, 0.014577, 0.64117, 1.104484, 1.643685, 0.008404, 0.022941, -0.052716, 0.108745, 0.063556, -0.112564], [0.452099, 0.374969, 0.275867, 0.247773, 0.670296, 1.66265, -0.025929, 0.058033, 0.03729, 0.204248, 0.1743, 0.043854], [0.002438, 0.003148, 0.00694, -0.079389, -0.084939, -0.178561, 0.010912, 0.010829, 0.01565, 0.00848, 0.007837, 0.014987], [0.041074, 0.044215, 0.051558, -0.178682, -0.16405, -0.262562, 0.012892, 0.022721, 0.034195, 0.030258, 0.026623, 0.038595], [0.076239, 0.082398, 0.093978, -0.266712, -0.233336, -0.327355, 0.013312, 0.032569, 0.050291, 0.04897, 0.043044, 0.060021]], [-0.38861, -0.469626, -0.914073, 2.628957, 2.364319, 4.075137, -0.074094, -0.220473, -0.409199, -0.161828, -0.124247, -0.484902], [[[0.008083, 0.409123], [-0.010017, 0.297234], [-0.098066, 0.185478], [0.056287, 0.305966]], [[-0.045217, 0.077661], [0.05421, 0.491943], [-0.016452, 0.344544], [-0.023124, 0.239858]], [[-0.068323, -0.0816], [-0.008469, 0.321619], [0.08495, 0.762354], [0.040501, 0.542041]]]]},
    'fused_peephole_clip_lengths': {
        'variables': ['lstm_fused_cell/kernel:0', 'lstm_fused_cell/bias:0', 'lstm_fused_cell/w_i_diag:0', 'lstm_fused_cell/w_f_diag:0', 'lstm_fused_cell/w_o_diag:0'],
        'loss': -0.303005,
        'outputs': [[[[-0.116277, -0.116206, -0.099423], [-0.126394, -0.090399, -0.036041], [-0.0, -0.0, 0.0]], [[0.013801, -0.033828, -0.084091], [0.0, -0.0, -0.0], [-0.0, -0.0, 0.0]], [[-0.080974, -0.121889, -0.136131], [0.0, -0.0, -0.0], [0.0, 0.0, -0.0]], [[-0.142016, -0.156883, -0.166619], [-0.0, -0.0, -0.0], [-0.0, -0.0, -0.0]]]],
        'states': [[[-0.25, -0.25, -0.25], [-0.239244, -0.163786, -0.062869], [0.25, 0.375, 0.5]], [[-0.142016, -0.156883, -0.166619], [-0.126394, -0.090399, -0.036041], [0.125, 0.1875, 0.25]]],
        'grads': [[[0.313827, 0.274636, 0.156991, -0.564333, -0.320083, 0.117881, 0.085114, 0.058738, -0.008235, 0.180768, 0.13266, 0.0278], [0.308828, 0.277758, 0.191849, -0.254389, -0.041641, 0.408651, 0.032607, 0.053404, 0.013807, 0.070673, 0.036502, -0.018586], [0.026393, 0.026411, 0.02681, -0.151301, -0.136143, -0.209524, 0.023097, 0.018412, 0.020048, 0.029061, 0.021105, 0.022409], [0.033905, 0.033648, 0.033879, -0.128112, -0.113281, -0.179103, 0.020374, 0.020219, 0.023091, 0.023072, 0.016034, 0.019851], [0.034078, 0.034126, 0.035544, -0.092087, -0.079561, -0.134799, 0.015358, 0.019382, 0.023745, 0.013583, 0.008273, 0.014848]], [-0.419146, -0.410837, -0.417283, 1.715429, 1.372048, 1.727431, -0.175177, -0.153675, -0.164739, -0.219633, -0.097854, -0.127649], [0.059625, 0.070176, 0.071562], [0.048527, 0.041525, 0.048004], [0.056243, 0.020511, 0.02651], [[[0.114008, 0.420061], [0.008476, 0.348418], [-0.088996, 0.244593], [-0.04395, 0.35481]], [[0.047876, 0.586296], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]]},
    'attention': {
        'variables': ['rnn/attention_cell_wrapper/kernel:0', 'rnn/attention_cell_wrapper/bias:0', 'rnn/attention_cell_wrapper/basic_lstm_cell/kernel:0', 'rnn/attention_cell_wrapper/basic_lstm_cell/bias:0', 'rnn/attention_cell_wrapper/attention/attn_w:0', 'rnn/attention_cell_wrapper/attention/attn_v:0', 'rnn/attention_cell_wrapper/attention/kernel:0', 'rnn/attention_cell_wrapper/attention/bias:0', 'rnn/attention_cell_wrapper/attn_output_projection/kernel:0', 'rnn/attention_cell_wrapper/attn_output_projection/bias:0'],
        'loss': -52.965969,
        'outputs': [[[[-0.395476, -0.42413, -0.39538], [-0.467381, -0.486301, -0.439403], [-0.696007, -0.707186, -0.622651], [-0.860881, -0.868362, -0.758314]], [[-0.450994, -0.478537, -0.441312], [-0.534023, -0.549483, -0.490572], [-0.736931, -0.749897, -0.661368], [0.0, 0.0, 0.0]], [[-0.491906, -0.519492, -0.476767], [-0.617202, -0.629114, -0.555878], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]],
        'states': [[[-0.416443, -0.302877, -0.147923], [-0.460493, -0.376582, -0.252097], [-0.226262, -0.112956, 0.024603]], [[-0.23675, -0.172611, -0.082474], [-0.254085, -0.227117, -0.161554], [-0.139838, -0.0725, 0.015792]], [[-0.575828, -0.591076, -0.526325], [-0.491888, -0.51348, -0.465574], [-0.209898, -0.221669, -0.203439]], [[-0.696007, -0.707186, -0.622651, -0.860881, -0.868362, -0.758314], [-0.534023, -0.549483, -0.490572, -0.736931, -0.749897, -0.661368], [-0.491906, -0.519492, -0.476767, -0.617202, -0.629114, -0.555878]]],
        'grads': [[[-1.40584, 0.322795], [1.634951, 1.244935], [-0.473865, 0.156888], [-0.504855, 0.16652], [-0.467514, 0.153615]], [11.537231, 1.00818], [[1.156882, 2.616295, 0.653902, -2.029456, -4.732424, -1.707696, 0.243549, 0.375771, 0.03652, 0.951846, 1.416581, 0.352975], [0.677047, 1.723424, 0.473288, -0.85044, -2.036113, -0.713529, 0.174531, 0.288618, 0.027542, 0.634789, 1.018351, 0.277076], [-0.116773, -0.273802, -0.055118, 0.286742, 0.890117, 0.192947, -0.050521, -0.11561, -0.01079, -0.183394, -0.307791, -0.060202], [-0.084406, -0.187588, -0.037415, 0.22025, 0.667918, 0.142367, -0.041032, -0.09704, -0.009854, -0.141307, -0.239341, -0.048163], [-0.040377, -0.073773, -0.014746, 0.123097, 0.348969, 0.072258, -0.025913, -0.064501, -0.007633, -0.078768, -0.135302, -0.029237]], [1.919223, 3.179433, 0.426021, -6.012672, -15.042448, -4.754424, 0.329807, 0.629533, 0.054409, 1.582297, 2.12863, 0.267198], [[[[0.359582, 0.754167, 0.895806], [0.377728, 0.792815, 0.942589], [0.344751, 0.724159, 0.861797]]]], [0.874355, 1.660199, 2.073048], [[0.013724, -0.007794, -0.117308], [0.009095, -0.005973, -0.08004], [0.003264, -0.003421, -0.03236], [0.00822, -0.0044, -0.069499], [0.005776, -0.003445, -0.049842], [0.002158, -0.001996, -0.020646]], [-0.047701, 0.017442, 0.380363], [[-6.950234, -7.80366, -4.988241], [-4.989135, -5.658064, -3.576171], [-2.208605, -2.602028, -1.56817], [-8.58199, -9.256993, -7.439588], [-9.011857, -9.721991, -7.778199], [-8.222012, -8.871161, -7.064067]], [45.452927, 51.072025, 30.589876], [[[1.475918, 1.013994], [0.830922, 0.568863], [0.656212, 0.519067], [0.119617, 0.113458]], [[1.378151, 0.985568], [0.606044, 0.416102], [-0.008234, 0.005822], [0.0, 0.0]], [[1.034423, 0.758339], [0.14554, 0.102878], [0.0, 0.0], [0.0, 0.0]]]]},
    'attention_concat': {
        'variables': ['rnn/attention_cell_wrapper/kernel:0', 'rnn/attention_cell_wrapper/bias:0', 'rnn/attention_cell_wrapper/gru_cell/gates/kernel:0', 'rnn/attention_cell_wrapper/gru_cell/gates/bias:0', 'rnn/attention_cell_wrapper/gru_cell/candidate/kernel:0', 'rnn/attention_cell_wrapper/gru_cell/candidate/bias:0', 'rnn/attention_cell_wrapper/attention/attn_w:0', 'rnn/attention_cell_wrapper/attention/attn_v:0', 'rnn/attention_cell_wrapper/attention/kernel:0', 'rnn/attention_cell_wrapper/attention/bias:0', 'rnn/attention_cell_wrapper/attn_output_projection/kernel:0', 'rnn/attention_cell_wrapper/attn_output_projection/bias:0'],
        'loss': 2.583123,
        'outputs': [[[0.088165, 0.285777], [0.057885, 0.250935], [0.021562, 0.226638]], [[0.18396, 0.431187], [0.177806, 0.396372], [0.144748, 0.346397]], [[0.226216, 0.514639], [0.241699, 0.516439], [0.244472, 0.492555]], [[0.308804, 0.558885], [0.299296, 0.57418], [0.29601, 0.580122]]],
        'states': [[[0.051138, 0.241305, 0.38296, 0.167484, 0.412779, 0.18396, 0.431187, 0.226216, 0.514639, 0.308804, 0.558885], [0.067026, 0.296921, 0.456325, 0.161357, 0.391093, 0.177806, 0.396372, 0.241699, 0.516439, 0.299296, 0.57418], [0.035108, 0.317821, 0.50359, 0.139887, 0.358732, 0.144748, 0.346397, 0.244472, 0.492555, 0.29601, 0.580122]]],
        'grads': [[[0.347331, -0.200184, -0.34806, -0.228654], [0.716743, -0.520227, -0.944205, -0.457735], [-0.029276, 0.060569, 0.086274, 0.020253], [-0.07153, 0.17662, 0.24606, 0.049107]], [0.314407, 0.953683, 0.980316, -0.160526], [[0.007115, 0.003773, 0.011572, -0.026293, -0.01947, -0.177487], [0.005052, 0.001495, 0.007015, -0.001724, -0.014171, -0.077759], [0.002305, -0.000985, 0.00151, 0.023079, -0.006953, 0.032492], [-0.000754, -0.003331, -0.0042, 0.044758, 0.001205, 0.138346], [-0.002089, 0.002263, -0.002152, 0.002658, 0.005069, 0.026348], [0.002925, -0.017648, 0.000377, -0.011492, -0.002456, -0.015236], [0.006269, -0.030391, 0.002258, -0.020628, -0.007627, -0.046214]], [0.016131, -0.0641, 0.011764, -0.130782, -0.021318, -0.342962], [[-0.722356, 0.069236, 0.659295], [-0.242857, 0.059487, 0.27221], [0.269511, 0.041686, -0.151718], [0.745403, 0.018244, -0.555111], [0.016981, -0.018476, -0.044429], [0.074375, 0.0806, 0.07921], [0.107962, 0.147829, 0.166522]], [-0.67586, 0.929094, 2.147933], [[[[0.013853, 0.008298, 0.002033, -0.004677, -0.011344], [0.02311, 0.013746, 0.003328, -0.007574, -0.018301]]]], [0.01707, 0.007176, -0.003645, -0.014842, -0.024914], [[2.7e-05, 6.6e-05, 2.1e-05, -3.1e-05, 1.9e-05], [0.00131, 0.000407, -1.5e-05, 0.000216, 0.000498], [0.002161, 0.000634, -3.9e-05, 0.000379, 0.000817]], [0.004608, 0.001271, -0.000114, 0.000866, 0.00177], [[-0.377696, -0.296679], [0.395162, 0.543806], [0.922546, 1.115405], [0.042638, 0.159768], [0.166666, 0.460421]], [3.370105, 3.218984], [[[0.052791, 0.107493], [-0.011447, 0.082913], [0.04009, -0.056928], [0.200958, -0.231181]], [[0.003119, 0.034558], [0.007641, -0.009452], [0.061209, -0.070257], [0.214376, -0.188989]], [[0.032211, 0.015022], [0.069358, 0.011317], [0.070228, 0.039171], [0.187519, -0.078793]]]]},
    'stack_static': {
        'variables': ['stack_bidirectional_rnn/cell_0/fw/gru_cell/gates/kernel:0', 'stack_bidirectional_rnn/cell_0/fw/gru_cell/gates/bias:0', 'stack_bidirectional_rnn/cell_0/fw/gru_cell/candidate/kernel:0', 'stack_bidirectional_rnn/cell_0/fw/gru_cell/candidate/bias:0', 'stack_bidirectional_rnn/cell_0/bw/basic_lstm_cell/kernel:0', 'stack_bidirectional_rnn/cell_0/bw/basic_lstm_cell/bias:0', 'stack_bidirectional_rnn/cell_1/fw/basic_rnn_cell/kernel:0', 'stack_bidirectional_rnn/cell_1/fw/basic_rnn_cell/bias:0', 'stack_bidirectional_rnn/cell_1/bw/gru_cell/gates/kernel:0', 'stack_bidirectional_rnn/cell_1/bw/gru_cell/gates/bias:0', 'stack_bidirectional_rnn/cell_1/bw/gru_cell/candidate/kernel:0', 'stack_bidirectional_rnn/cell_1/bw/gru_cell/candidate/bias:0'],
        'loss': 15.339304,
        'outputs': [[[-0.387244, -0.448116, 0.385326, 0.260562], [0.086131, -0.043599, 0.16376, 0.177078], [0.292335, 0.100056, 0.172206, 0.236852]], [[-0.609752, -0.686879, 0.385337, 0.232349], [-0.392759, -0.366361, 0.143268, 0.078081], [-0.278626, -0.265444, 0.216913, 0.150173]], [[-0.454031, -0.605487, 0.270124, 0.181634], [0.0, 0.0, 0.0, 0.0], [-0.44246, -0.476096, 0.169211, 0.07806]], [[-0.044763, -0.289867, 0.135616, 0.138843], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]],
        'states': [[[-0.338891, -0.352516, -0.332468], [-0.607047, -0.635615, -0.606407], [-0.680341, -0.73112, -0.72546]], [[-0.044763, -0.289867], [-0.392759, -0.366361], [-0.44246, -0.476096]], [[0.692009, 0.756893, 0.708094], [0.241506, 0.248905, 0.217498], [0.476615, 0.458885, 0.351112]], [[0.29151, 0.294987, 0.269284], [0.097529, 0.097826, 0.086432], [0.150565, 0.140363, 0.113458]], [[0.385326, 0.260562], [0.16376, 0.177078], [0.172206, 0.236852]]],
        'grads': [[[-0.009301, 0.019279, 0.041158, 0.489489, 0.473392, 0.412534], [-0.012642, 0.051361, 0.07838, 0.417809, 0.654613, 0.650596], [-0.017385, 0.083278, 0.090808, 0.007059, -0.027114, -0.045961], [-0.01875, 0.090145, 0.099513, 0.03667, 0.00713, -0.020259], [-0.018298, 0.088312, 0.098784, 0.067667, 0.046058, 0.011056]], [0.03157, -0.140486, -0.143998, -0.032985, 0.438894, 0.48332], [[1.412898, 0.148456, -1.114117], [0.436, 0.366487, 0.330322], [-0.344706, -0.31876, -0.218017], [-0.335574, -0.302255, -0.19549], [-0.294684, -0.258656, -0.15742]], [-0.577756, 1.643683, 3.559576], [[-0.494742, 0.380255, 0.349144, -1.204943, -0.552388, -2.483359, 0.138028, 0.125106, -0.146339, -1.025996, -0.158077, -0.592328], [-0.064235, 0.633556, 0.564723, 2.736659, 3.770638, 1.348106, 0.462934, 0.539119, 0.376225, -0.012577, 0.670473, 0.032073], [0.253245, 0.333675, 0.244114, 1.328357, 1.537823, 1.330402, 0.286661, 0.350873, 0.286641, 0.265145, 0.491545, 0.226565], [0.274428, 0.336696, 0.237992, 1.458205, 1.69882, 1.480722, 0.274575, 0.343195, 0.291003, 0.300199, 0.500515, 0.23903], [0.262699, 0.301592, 0.206767, 1.41381, 1.653438, 1.452371, 0.233948, 0.298935, 0.263437, 0.297514, 0.454291, 0.224272]], [2.277268, 3.279062, 1.7529, 11.474611, 16.194412, 11.581527, 1.159846, 1.654813, 1.419394, 1.287619, 2.834183, 0.814696], [[-1.832418, -2.237836], [-2.029804, -2.330736], [-2.060229, -2.201054], [0.268167, 0.35082], [0.356182, 0.505539], [0.387857, 0.582401], [-0.738287, -0.092676], [-0.761903, -0.425435]], [2.071194, 3.970962], [[0.0604, 0.069796, 0.141404, 0.093821], [0.053921, 0.061271, 0.153533, 0.069952], [0.040313, 0.044746, 0.151601, 0.037021], [-0.045088, -0.055924, -0.015519, -0.062021], [-0.045906, -0.056629, -0.024774, -0.066076], [-0.041757, -0.051167, -0.030257, -0.062106], [-0.062517, -0.077349, -0.010461, -0.097223], [-0.037898, -0.047137, -0.003138, -0.058461]], [-0.220257, -0.269149, -0.137691, -0.475542], [[-2.731371, -1.932894], [-2.462499, -1.610341], [-1.909502, -1.075961], [1.545213, 1.231188], [1.626127, 1.314196], [1.520027, 1.242384], [0.937137, 0.811179], [0.557143, 0.470507]], [9.313639, 7.951621], [[[2.187762, -2.026393], [1.256396, -1.71465], [0.836748, -1.613007], [0.317374, -1.759052]], [[2.389054, -2.779539], [1.138225, -2.430395], [0.0, 0.0], [0.0, 0.0]], [[2.26334, -2.296133], [1.175863, -2.640405], [0.374007, -1.899521], [0.0, 0.0]]]]},
    'stack_dynamic': {
        'variables': ['stack_bidirectional_rnn/cell_0/bidirectional_rnn/fw/basic_lstm_cell/kernel:0', 'stack_bidirectional_rnn/cell_0/bidirectional_rnn/fw/basic_lstm_cell/bias:0', 'stack_bidirectional_rnn/cell_0/bidirectional_rnn/bw/gru_cell/gates/kernel:0', 'stack_bidirectional_rnn/cell_0/bidirectional_rnn/bw/gru_cell/gates/bias:0', 'stack_bidirectional_rnn/cell_0/bidirectional_rnn/bw/gru_cell/candidate/kernel:0', 'stack_bidirectional_rnn/cell_0/bidirectional_rnn/bw/gru_cell/candidate/bias:0', 'stack_bidirectional_rnn/cell_1/bidirectional_rnn/fw/gru_cell/gates/kernel:0', 'stack_bidirectional_rnn/cell_1/bidirectional_rnn/fw/gru_cell/gates/bias:0', 'stack_bidirectional_rnn/cell_1/bidirectional_rnn/fw/gru_cell/candidate/kernel:0', 'stack_bidirectional_rnn/cell_1/bidirectional_rnn/fw/gru_cell/candidate/bias:0', 'stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/basic_rnn_cell/kernel:0', 'stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/basic_rnn_cell/bias:0'],
        'loss': 7.338442,
        'outputs': [[[[-0.138603, -0.1164, 0.18896, 0.206478], [-0.234148, -0.217888, 0.156075, 0.231896], [-0.291775, -0.277729, -0.002339, 0.044365], [-0.32011, -0.292373, 0.134902, 0.187597]], [[-0.142969, -0.114509, 0.179514, 0.186704], [-0.254248, -0.234249, 0.194235, 0.283259], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[-0.136748, -0.10332, 0.219879, 0.222915], [-0.21982, -0.166431, 0.200693, 0.198771], [-0.290816, -0.257311, 0.143455, 0.224401], [0.0, 0.0, 0.0, 0.0]]]],
        'states': [[[-0.405218, -0.475356, -0.513889], [0.033853, -0.047512, -0.13013], [0.056577, -0.087339, -0.225723]], [[-0.219123, -0.284132, -0.327119], [0.013133, -0.018822, -0.054172], [0.019767, -0.032185, -0.090321]], [[-0.32011, -0.292373], [-0.254248, -0.234249], [-0.290816, -0.257311]], [[0.128632, 0.346572, 0.455127], [0.19949, 0.298464, 0.318365], [0.223384, 0.270582, 0.251664]], [[0.18896, 0.206478], [0.179514, 0.186704], [0.219879, 0.222915]]],
        'grads': [[[0.202727, 0.040398, 0.173074, 1.641459, 0.692965, -0.362358, -0.035069, -0.01511, -0.042773, 0.033041, -0.030821, 0.092338], [0.342551, 0.095518, 0.10531, 1.426776, 0.496347, 0.015817, -0.067599, -0.00862, -0.013174, 0.152535, 0.018066, 0.119898], [0.001397, 0.002527, -0.004811, -0.209954, -0.071393, -0.014869, 0.017217, 0.006174, 0.000207, 0.01585, -0.004208, -0.025481], [0.022993, 0.012134, 0.00092, -0.252671, -0.085633, -0.023041, 0.022121, 0.0103, 0.00176, 0.02729, -0.005242, -0.027578], [0.041972, 0.020406, 0.007417, -0.267362, -0.091719, -0.032394, 0.024685, 0.013393, 0.003477, 0.035314, -0.006088, -0.025447]], [0.156644, 0.012886, -0.388286, 1.35176, 0.439311, 1.264926, -0.190896, -0.094572, -0.044963, 0.334366, 0.180317, -0.079835], [[-0.114199, -0.084018, 0.428952, 0.66279, -0.774999, -0.988581], [-0.087934, 0.013435, -0.040812, -0.261141, -1.120401, -1.003921], [0.026467, 0.012075, -0.054006, -0.066595, -0.004541, 0.030663], [0.056104, 0.054007, -0.249481, -0.394846, -0.119931, 0.033797], [0.064774, 0.071001, -0.331146, -0.532116, -0.161589, 0.041924]], [0.248912, 0.201168, -0.887175, -1.402691, -1.332118, -0.617017], [[-1.491137, -1.091669, -2.331669], [3.48512, 2.505817, 0.097692], [0.354022, 0.35505, 0.20128], [1.300086, 1.15712, 0.692868], [1.829941, 1.596147, 0.96185]], [16.097061, 15.2516, 7.6519], [[0.022385, 0.014709, -0.047271, -0.025398], [0.036208, 0.023509, -0.076258, -0.048172], [0.047691, 0.030735, -0.100067, -0.068231], [-0.017868, -0.011309, 0.097968, 0.05827], [-0.041598, -0.024514, 0.248406, 0.166437], [-0.047353, -0.027308, 0.304275, 0.206656], [0.056262, 0.035373, -0.10711, -0.085446], [0.049663, 0.031467, -0.089019, -0.070477]], [-0.250217, -0.154621, 0.949921, 0.660104], [[-0.481997, -0.531746], [-0.756632, -0.832237], [-0.979629, -1.076012], [0.671899, 0.69151], [1.613758, 1.63287], [1.930854, 1.937442], [-0.707359, -0.792213], [-0.583442, -0.656422]], [7.083157, 7.442966], [[-0.989857, -0.713757], [-1.015667, -0.664898], [-0.885668, -0.460492], [1.94672, 1.510984], [2.627856, 1.374775], [2.827918, 1.298234], [2.413667, 2.413395], [2.984334, 2.795733]], [8.723789, 4.512006], [[[-1.262999, 1.63335], [-0.046929, 0.277794], [-1.152101, 1.566368], [0.010904, 0.36289]], [[-1.142181, 2.082766], [-0.050446, 1.071007], [0.0, 0.0], [0.0, 0.0]], [[-1.626473, 2.715777], [-0.318267, 0.606657], [-0.288634, 1.236161], [0.0, 0.0]]]]},
}
