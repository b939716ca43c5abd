// The generated header's section on the model's own description and training info.
#pragma once

#include <string>

#include "ir/ir.h"

namespace onnxc {

// Constants kProducerName ... kNumTrainingInfos for the generated header (inside its namespace):
// the ModelProto's producer, domain, version and doc strings, each graph input's and output's
// doc_string, metadata_props, and a comment listing each TrainingInfoProto (not compiled).
std::string model_description(const Module& m);
// One line on a TrainingInfoProto, its model text escaped: "algorithm 'A' (N nodes)[,
// initialization 'I' (M nodes)][, initializes 'S' <- 'O'...][, updates 'S' <- 'O'...]" (the
// header's comment and `onnxc inspect` both print it).
std::string training_info_summary(const Module::TrainingInfo& t);

}  // namespace onnxc
