// The map ops of ai.onnx.ml. A map reaches generated code as two 1-D tensors of n entries, its
// keys and its values (ZipMap's output and map graph inputs are NAME.keys / NAME.values; see
// ValueKind::kMap in compiler/ir/ir.h). Either may be numbers or strings in slots
// (onnxc/strings.h); a string column comes with its slot size, a number column ignores it.
//   dict_vectorizer_ref<K, VocabK, V>  DictVectorizer: y[j] = the value whose key is vocab[j]
//   cast_map_ref<From, To>             CastMap: the values in ascending key order, dense (n
//                                      outputs) or sparse (max_map outputs, key = position)
// dict_vectorizer_ref returns false for a string longer than its slot (run() returns
// kStringTooLong); cast_map_ref returns the status run() returns (0, kStringTooLong, kErrorMapKey).
#ifndef ONNXC_ML_MAP_H
#define ONNXC_ML_MAP_H

#include <cstdint>
#include <cstring>

#include "onnxc/base.h"
#include "onnxc/strings.h"

namespace onnxc {

namespace map_detail {

// Whether key i equals k: numbers compare, strings compare bytes (an over-long one equals none).
inline bool key_is(const std::int64_t* keys, index_t /*slot*/, index_t i, std::int64_t k) {
  return keys[i] == k;
}
inline bool key_is(const char* keys, index_t slot, index_t i, const char* k) {
  return string_equal(string_at(keys, slot, i), StringRef{k, static_cast<index_t>(std::strlen(k))});
}

// y[j] = x[i]; false if a string is longer than its slot.
template <typename T>
inline bool copy_at(const T* x, index_t /*x_slot*/, index_t i, T* y, index_t /*y_slot*/,
                    index_t j) {
  y[j] = x[i];
  return true;
}
inline bool copy_at(const char* x, index_t x_slot, index_t i, char* y, index_t y_slot, index_t j) {
  const StringRef s = string_at(x, x_slot, i);
  return s.size >= 0 && string_store(y + j * y_slot, y_slot, &s, 1);
}

// y[j] = the zero of y's type ("" for strings).
template <typename T>
inline void clear_at(T* y, index_t /*slot*/, index_t j) {
  y[j] = T(0);
}
inline void clear_at(char* y, index_t slot, index_t j) {
  y[j * slot] = '\0';
}

// float to int64 as a C++ cast where that is defined; NaN and values out of int64's range give
// INT64_MIN (what x86's conversion instruction returns), not undefined behaviour.
inline std::int64_t to_int64(float v) {
  return v >= -9.2233720368547758e18f && v < 9.2233720368547758e18f ? static_cast<std::int64_t>(v)
                                                                    : INT64_MIN;
}

}  // namespace map_detail

// DictVectorizer over a map of n entries: y[j] = the value whose key is vocab[j], zero (an empty
// string) when no key is. Keys missing from the vocabulary are skipped, as onnxruntime does (the
// spec requires them all to be in it). Numeric keys: K = VocabK = int64_t; string keys: K = char
// (slots of key_slot bytes) and VocabK = const char*. V: float, double, int64_t, or char
// (strings). False if a string is longer than its slot.
template <typename K, typename VocabK, typename V>
inline bool dict_vectorizer_ref(index_t n, const K* keys, index_t key_slot, const V* values,
                                index_t value_slot, const VocabK* vocab, index_t vocab_n, V* y,
                                index_t y_slot) {
  if constexpr (sizeof(K) == 1)
    for (index_t i = 0; i < n; ++i)
      if (string_at(keys, key_slot, i).size < 0) return false;
  for (index_t j = 0; j < vocab_n; ++j) {
    map_detail::clear_at(y, y_slot, j);
    for (index_t i = 0; i < n; ++i)
      if (map_detail::key_is(keys, key_slot, i, vocab[j])) {
        if (!map_detail::copy_at(values, value_slot, i, y, y_slot, j)) return false;
        break;
      }
  }
  return true;
}

// CastMap over a map of n entries with int64 keys, the values in ascending key order.
// max_map == 0 (DENSE): y has n elements, y[r] the value of the key with r keys below it.
// max_map > 0 (SPARSE): y has max_map elements, y[k] the value of key k, `pad` where no key is.
// From/To: float to float or int64 (map_detail::to_int64), or char to char (strings; pad is then
// a C string). Returns kErrorMapKey when the keys repeat or, SPARSE, one is outside [0, max_map)
// (the spec's "the key cannot exceed max_map - 1"), kStringTooLong when a string does not fit its
// slot, else 0.
template <typename From, typename To, typename Pad>
inline int cast_map_ref(index_t n, const std::int64_t* keys, const From* values, index_t value_slot,
                        index_t max_map, Pad pad, To* y, index_t y_slot) {
  auto put = [&](index_t i, index_t j) {
    if constexpr (sizeof(To) == 1) {
      return map_detail::copy_at(values, value_slot, i, y, y_slot, j);
    } else if constexpr (sizeof(To) == 8 && sizeof(From) == 4) {
      y[j] = map_detail::to_int64(values[i]);
      return true;
    } else {
      y[j] = static_cast<To>(values[i]);
      return true;
    }
  };
  for (index_t i = 0; i < n; ++i)
    for (index_t k = 0; k < i; ++k)
      if (keys[k] == keys[i]) return kErrorMapKey;
  if (max_map > 0) {
    for (index_t j = 0; j < max_map; ++j) {
      if constexpr (sizeof(To) == 1) {
        const StringRef s{pad, static_cast<index_t>(std::strlen(pad))};
        if (!string_store(y + j * y_slot, y_slot, &s, 1)) return kStringTooLong;
      } else {
        y[j] = pad;
      }
    }
    for (index_t i = 0; i < n; ++i) {
      if (keys[i] < 0 || keys[i] >= max_map) return kErrorMapKey;
      if (!put(i, static_cast<index_t>(keys[i]))) return kStringTooLong;
    }
    return 0;
  }
  for (index_t i = 0; i < n; ++i) {
    index_t rank = 0;
    for (index_t k = 0; k < n; ++k) rank += keys[k] < keys[i] ? 1 : 0;
    if (!put(i, rank)) return kStringTooLong;
  }
  return 0;
}

}  // namespace onnxc

#endif  // ONNXC_ML_MAP_H
