// The random stream of the random ops (RandomUniform, RandomNormal, their *Like forms,
// Bernoulli, Multinomial, training Dropout). With a `seed` attribute that is an integer in
// [0, 2^32) the stream is numpy's RandomState(seed) (MT19937 seeded as numpy seeds it, doubles
// of 53 bits, the legacy polar normal, binomial(1, p) by inversion), so a seeded node draws
// what the ONNX reference evaluator draws, on every run; another seed is hashed into the
// generator, and no seed draws from a fresh one per run. Kernels make one stream per run and
// keep no generator state, so compute() stays safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "core/graph/graph.h"

namespace geon::cpu {

// The node's `seed` attribute (a float for the random ops, an int for Dropout), if it has one.
std::optional<double> seed_attr(const Node& n);

class RandomStream {
 public:
  explicit RandomStream(std::optional<double> seed);
  double uniform();  // [0, 1), numpy's random_sample
  double normal();   // standard normal, numpy's legacy gauss
  // numpy's binomial(1, p) for p in [0, 1]: 0 without a draw when p is 0.
  bool bernoulli(double p);

 private:
  std::mt19937 mt_;
  bool has_gauss_ = false;
  double gauss_ = 0;
};

}  // namespace geon::cpu
