#pragma once
// The restricted unpickler's entry point. IValue's containers and the opaque objects (storages,
// allowed globals) that exist only while a pickle is read are in core/ivalue_internal.h.
#include <functional>
#include <string>
#include <string_view>

#include "core/ivalue_internal.h"
#include "ember/serialize/pickle.h"

namespace ember::detail {

/// Loads the storage `key` of `numel` elements of `dtype` (one call per persistent id).
using StorageLoader =
    std::function<std::shared_ptr<const PickleObject>(ScalarType, const std::string&, uint64_t)>;

/// Runs the restricted unpickler over `bytes`; errors name `source`.
IValue unpickle(std::string_view bytes, const StorageLoader& load_storage,
                const std::string& source);

}  // namespace ember::detail
