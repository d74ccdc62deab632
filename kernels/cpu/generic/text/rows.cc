// cpu.generic's text family: its rows of the kernel table (generic/families.h). String ops of
// the default domain and the ai.onnx.ml ops; one row per op serves every opset (the kernels
// read the opset's attribute forms from the node).
#include "kernels/cpu/generic/families.h"
#include "kernels/cpu/generic/text/ops.h"

namespace geon::cpu {
namespace {

const KernelEntry kText[] = {
    {"", "StringConcat", 20, supports_string_concat, create_string_concat},
    {"", "StringSplit", 20, supports_string_split, create_string_split},
    {"", "StringNormalizer", 10, supports_string_normalizer, create_string_normalizer},
    {"", "RegexFullMatch", 20, supports_regex_full_match, create_regex_full_match},
    {"", "ImageDecoder", 20, supports_image_decoder, create_image_decoder},
    {"", "TfIdfVectorizer", 9, supports_tfidf_vectorizer, create_tfidf_vectorizer},
    {"ai.onnx.ml", "LabelEncoder", 1, supports_label_encoder, create_label_encoder},
    {"ai.onnx.ml", "TreeEnsemble", 5, supports_tree_ensemble, create_tree_ensemble},
    {"ai.onnx.ml", "ArrayFeatureExtractor", 1, supports_array_feature_extractor,
     create_array_feature_extractor},
    {"ai.onnx.ml", "Binarizer", 1, supports_binarizer, create_binarizer},
};

}  // namespace

std::span<const KernelEntry> text_rows() { return kText; }

}  // namespace geon::cpu
