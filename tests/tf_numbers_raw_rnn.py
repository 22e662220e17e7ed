"""Numbers from real TensorFlow (tensorflow-cpu 2.21, tf.compat.v1 with TF_USE_LEGACY_KERAS=1,
graph mode: TF 1.15 semantics) for tests/test_raw_rnn.py: tf.nn.raw_rnn's stacked emits, final
states (and loop state), a loss and its gradients, every variable set to ``weight(k, shape)``
(k: its index in tf.trainable_variables()).  Produced by ``python ref_raw.py lstm
gru_emit_loop_state`` (each case prints one entry of REFERENCE, rounded to 6 decimals)::

    import os, sys; os.environ["TF_USE_LEGACY_KERAS"] = "1"; os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np, tensorflow as tf1
    tf = tf1.compat.v1; tf.disable_eager_execution()
    T, B, D, H = 5, 3, 2, 4
    xv = np.sin(np.arange(T * B * D) * 0.7).reshape(T, B, D).astype(np.float32)
    lengths = np.array([5, 2, 3], np.int32)
    def weight(k, shape):
        return (np.cos(np.arange(int(np.prod(shape))) * 0.37 + k) * 0.5).reshape(shape).astype(np.float32)
    def lstm(x, seq):
        inputs_ta = tf.TensorArray(tf.float32, size=T).unstack(x)
        cell = tf.nn.rnn_cell.LSTMCell(H)
        def loop_fn(time, cell_output, cell_state, loop_state):
            state = cell.zero_state(B, tf.float32) if cell_output is None else cell_state
            finished = time >= seq
            # the read's index clamped: the value at time T is never used (tf.cond picks zeros)
            next_input = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([B, D]),
                                 lambda: inputs_ta.read(tf.minimum(time, T - 1)))
            return finished, next_input, state, cell_output, None
        emit_ta, state, loop_state = tf.nn.raw_rnn(cell, loop_fn)
        assert loop_state is None
        return [emit_ta.stack()], list(state)
    def gru_emit_loop_state(x, seq):
        inputs_ta = tf.TensorArray(tf.float32, size=T).unstack(x)
        cell = tf.nn.rnn_cell.GRUCell(H)
        def loop_fn(time, cell_output, cell_state, loop_state):
            if cell_output is None:
                state, emit = cell.zero_state(B, tf.float32) + 0.25, (tf.zeros([H]), tf.zeros([1]))
                loop_state = tf.constant(0.0)
            else:
                state = cell_state
                emit = (cell_output, tf.reduce_sum(cell_output * cell_output, 1, keepdims=True))
                loop_state = loop_state + tf.reduce_sum(cell_output)
            finished = time >= seq
            next_input = inputs_ta.read(tf.minimum(time, T - 1)) * 2.0
            return finished, next_input, state, emit, loop_state
        (out_ta, sq_ta), state, loop_state = tf.nn.raw_rnn(cell, loop_fn, scope="decoder")
        return [out_ta.stack(), sq_ta.stack()], [state, loop_state]
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
            x = tf.placeholder(tf.float32, [T, B, D])
            seq = tf.placeholder(tf.int32, [B])
            outs, states = build(x, seq)
            dyn = [tf.reshape(o, [T, B, o.get_shape()[-1]]) for o in outs]  # T steps stacked
            loss = loss_of(dyn, states)
            vs = tf.trainable_variables()
            grads = tf.gradients(loss, vs + [x])
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                for k, v in enumerate(vs):
                    v.load(weight(k, v.get_shape().as_list()), s)
                r = s.run([outs, states, loss, grads], {x: xv, seq: lengths})
            rnd = lambda a: np.round(np.asarray(a, np.float64), 6).tolist()
            print(f"    {name!r}: {{")
            print(f"        'variables': {[v.name for v in vs]!r},")
            print(f"        'loss': {round(float(r[2]), 6)!r},")
            print(f"        'outputs': {[rnd(o) for o in r[0]]!r},")
            print(f"        'states': {[rnd(o) for o in r[1]]!r},")
            print(f"        'grads': {[rnd(o) for o in r[3]]!r}}},")
    for n in sys.argv[1:]:
        case(n, globals()[n])
"""

REFERENCE = {
    'lstm': {
        'variables': ['rnn/lstm_cell/kernel:0', 'rnn/lstm_cell/bias:0'],
        'loss': -13.520793,
        'outputs': [[[[-0.084119, -0.147463, -0.179454, -0.179206], [-0.058695, -0.215557, -0.305228, -0.319684], [-0.141945, -0.156579, -0.14652, -0.11853]], [[-0.262721, -0.249271, -0.194405, -0.111985], [-0.274182, -0.353352, -0.352805, -0.287871], [-0.207646, -0.327394, -0.375545, -0.359576]], [[-0.327417, -0.392261, -0.391805, -0.324799], [0.0, 0.0, 0.0, 0.0], [-0.417417, -0.435066, -0.374237, -0.255579]], [[-0.450642, -0.496273, -0.479074, -0.397123], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[-0.600517, -0.568537, -0.466628, -0.295799], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]],
        'states': [[[-0.91567, -0.914759, -0.806546, -0.578698], [-0.415894, -0.559938, -0.58512, -0.501368], [-0.602153, -0.676407, -0.63343, -0.487003]], [[-0.600517, -0.568537, -0.466628, -0.295799], [-0.274182, -0.353352, -0.352805, -0.287871], [-0.417417, -0.435066, -0.374237, -0.255579]]],
        'grads': [[[0.509237, 0.175046, -0.277266, -0.806776, 0.574811, 0.26895, -0.096857, -0.275321, 0.099604, 0.068568, 0.037421, 0.057756, 0.328735, 0.40622, 0.460721, 0.401362], [0.202427, -0.134282, -0.572911, -1.051498, 1.454305, 1.101334, 0.566889, 0.17261, 0.011413, -0.059093, -0.082332, -0.044234, 0.215046, 0.265317, 0.30427, 0.241321], [0.287576, 0.337493, 0.350178, 0.279905, -0.387602, -0.416279, -0.474637, -0.536833, 0.170705, 0.198793, 0.184483, 0.134842, 0.16725, 0.260946, 0.32116, 0.293003], [0.377483, 0.417014, 0.409822, 0.305657, -0.486557, -0.513461, -0.592638, -0.678825, 0.200748, 0.238738, 0.222034, 0.165532, 0.208863, 0.315662, 0.38483, 0.354264], [0.398292, 0.422448, 0.398301, 0.279463, -0.493014, -0.516116, -0.602901, -0.697456, 0.198042, 0.23774, 0.221056, 0.167058, 0.214666, 0.318072, 0.385941, 0.357398], [0.350706, 0.357449, 0.322226, 0.209482, -0.413034, -0.431744, -0.513081, -0.600468, 0.163872, 0.197727, 0.183765, 0.141049, 0.184601, 0.269375, 0.326705, 0.304864]], [-1.300804, -1.724258, -1.992609, -1.851684, 3.177813, 3.502871, 3.894311, 4.263467, -0.568379, -0.739792, -0.723646, -0.561345, -0.558312, -0.918564, -1.158126, -1.100501], [[[-1.321563, -0.696781], [-0.126771, 0.005677], [-0.490613, -0.417447]], [[-0.682367, -0.343792], [-0.332695, -0.133086], [-0.43255, -0.329315]], [[-0.742373, -0.409166], [0.0, 0.0], [-0.360551, -0.181514]], [[-0.546944, -0.257489], [0.0, 0.0], [0.0, 0.0]], [[-0.418184, -0.145116], [0.0, 0.0], [0.0, 0.0]]]]},
    'gru_emit_loop_state': {
        'variables': ['decoder/gru_cell/gates/kernel:0', 'decoder/gru_cell/gates/bias:0', 'decoder/gru_cell/candidate/kernel:0', 'decoder/gru_cell/candidate/bias:0'],
        'loss': -27.771288,
        'outputs': [[[[-0.426029, -0.36013, -0.233874, -0.048213], [-0.506491, -0.553188, -0.555389, -0.49981], [-0.043829, -0.178976, -0.273842, -0.310805]], [[0.150734, 0.227467, 0.279365, 0.305226], [-0.363271, -0.280468, -0.195857, -0.117501], [-0.602715, -0.649136, -0.647752, -0.568502]], [[-0.442664, -0.517274, -0.546444, -0.520026], [0.0, 0.0, 0.0, 0.0], [-0.024879, 0.018389, 0.027006, 0.035083]], [[-0.677418, -0.666192, -0.595439, -0.445557], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[0.021414, 0.084706, 0.125533, 0.149007], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]], [[[0.368216], [1.120817], [0.205543]], [[0.24567], [0.262794], [1.527418]], [[1.032552], [0.0], [0.002917]], [[1.455775], [0.0], [0.0]], [[0.045596], [0.0], [0.0]]]],
        'states': [[[0.021414, 0.084706, 0.125533, 0.149007], [-0.363271, -0.280468, -0.195857, -0.117501], [-0.024879, 0.018389, 0.027006, 0.035083]], -16.769753],
        'grads': [[[1.550145, 1.97275, -1.079734, -1.612108, 11.605046, 12.928858, 8.999372, 7.388745], [0.916104, 1.016099, -0.448884, -0.503768, 11.69207, 12.17025, 7.309458, 5.242785], [0.621155, 0.752901, -0.454842, -0.648481, 2.283138, 2.721606, 1.942063, 1.568449], [0.625495, 0.774694, -0.476688, -0.694026, 2.216846, 2.699919, 1.970737, 1.636291], [0.582171, 0.734845, -0.461227, -0.687201, 1.987264, 2.482427, 1.830217, 1.574327], [0.478369, 0.616152, -0.397523, -0.61096, 1.582711, 2.045811, 1.498227, 1.362765]], [-0.879791, -1.050396, 0.564094, 0.716953, 1.925352, 1.891546, 0.263476, 0.58753], [[-8.009214, -7.15393, -4.225617, -1.107969], [-4.949681, -4.129972, -5.022707, -1.158598], [-1.644282, -1.49294, -1.075942, -0.985062], [-1.481785, -1.351457, -0.923367, -0.890617], [-1.247096, -1.139129, -0.729463, -0.756222], [-0.903797, -0.821881, -0.470131, -0.553061]], [14.240673, 14.438827, 10.855024, 11.691561], [[[-3.539342, -2.323361], [-0.922199, -0.559807], [-6.10369, -3.242351]], [[-2.660842, -3.173725], [-4.640567, -5.812005], [-2.500991, -0.482587]], [[-3.823967, -1.030142], [-2.644426, -1.805834], [-1.649084, -3.178807]], [[-2.741239, -1.770296], [-0.827491, 0.066478], [-2.743652, -1.654388]], [[-1.96135, -2.885381], [-2.21188, -1.914329], [-1.112512, 0.020703]]]]},
}
