// A container of the format table uploaded: every array among its members
// (FormatTraits<Matrix>::members) in a buffer of its own, every part (HYB's
// ELL and COO) uploaded as its own format is, and the contract view of
// them. The members' list is the core table's; what a format adds is only
// how its view is filled from the device side: an overload
// contract_view(const FmtMatrix&, ...) in spmv/memory/format_views.hpp
// (the header to include), which receives, in the members' order, each
// array's device pointer and each part's view.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spmv/core/format_base.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv {

// A container whose FormatTraits list its members.
template <typename Matrix>
concept ListsMembers = requires {
  FormatTraits<Matrix>::members;
};

template <ListsMembers Matrix>
struct FormatBuffers;

namespace detail {

// An array member uploads into a Buffer, a part into its format's buffers;
// scalars only reach the view.
template <typename T>
struct StoredAs {
  using type = FormatBuffers<T>;
};
template <typename T>
struct StoredAs<std::vector<T>> {
  using type = Buffer<T>;
};

template <typename M>
constexpr auto if_uploaded(M member) {
  if constexpr (std::is_arithmetic_v<typename M::type>) {
    return std::tuple<>{};
  } else {
    return std::tuple<M>{member};
  }
}

template <typename Matrix, std::size_t... I>
constexpr auto uploaded_members(std::index_sequence<I...> /*members*/) {
  return std::tuple_cat(if_uploaded(std::get<I>(FormatTraits<Matrix>::members))...);
}

// The members of Matrix that have buffers, in the table's order.
template <typename Matrix>
inline constexpr auto kUploadedMembers = uploaded_members<Matrix>(
    std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(FormatTraits<Matrix>::members)>>>{});

template <typename Members>
struct StorageOf;
template <typename... M>
struct StorageOf<std::tuple<M...>> {
  using type = std::tuple<typename StoredAs<typename M::type>::type...>;
};

// What contract_view receives of an uploaded member.
template <typename T>
T* device_side(const Buffer<T>& array) {
  return array.data();
}
template <typename Part>
const auto& device_side(const FormatBuffers<Part>& part) {
  return part.view;
}

template <typename Matrix, typename Storage>
struct ViewOf;
template <typename Matrix, typename... Stored>
struct ViewOf<Matrix, std::tuple<Stored...>> {
  using type = decltype(contract_view(std::declval<const Matrix&>(), device_side(std::declval<const Stored&>())...));
};

template <typename A, typename B>
constexpr bool same_member(A a, B b) {
  if constexpr (std::is_same_v<A, B>) {
    return a == b;
  } else {
    return false;
  }
}

// The position of member pointer `kPointer` among `members` (their count
// when it is not there).
template <auto kPointer, typename Members, std::size_t... I>
constexpr std::size_t position_of(const Members& members, std::index_sequence<I...> /*members*/) {
  std::size_t position = sizeof...(I);
  ((position = same_member(std::get<I>(members).pointer, kPointer) ? I : position), ...);
  return position;
}

template <std::size_t... I, typename Use>
void each_index(std::index_sequence<I...> /*indices*/, Use&& use) {
  (use(std::integral_constant<std::size_t, I>{}), ...);
}

}  // namespace detail

// The view's pointers stay valid as long as this object lives (it is
// move-only; moving keeps the allocations).
template <ListsMembers Matrix>
struct FormatBuffers {
  static constexpr const auto& kMembers = detail::kUploadedMembers<Matrix>;
  static constexpr std::size_t kCount = std::tuple_size_v<std::remove_cvref_t<decltype(kMembers)>>;
  using Stored = typename detail::StorageOf<std::remove_cvref_t<decltype(kMembers)>>::type;
  using View = typename detail::ViewOf<Matrix, Stored>::type;

  Stored stored;  // one per uploaded member, in the table's order
  View view{};

  // The buffer of array member `kPointer` (&CsrMatrix::values).
  template <auto kPointer>
  [[nodiscard]] const auto& array() const {
    constexpr std::size_t position = detail::position_of<kPointer>(kMembers, std::make_index_sequence<kCount>{});
    static_assert(position < kCount, "not an array of this format");
    return std::get<position>(stored);
  }

  // visit(name, buffer, host array) for every array uploaded from `a`; a
  // part's arrays are named after it ("ell.col_idx", "coo.values").
  template <typename Visit>
  void for_each_array(const Matrix& a, Visit&& visit, const std::string& prefix = {}) const {
    detail::each_index(std::make_index_sequence<kCount>{}, [&](auto i) {
      const auto& member = std::get<i>(kMembers);
      const auto& buffer = std::get<i>(stored);
      if constexpr (ListsMembers<typename std::remove_cvref_t<decltype(member)>::type>) {
        buffer.for_each_array(a.*member.pointer, visit, prefix + member.name + ".");
      } else {
        visit(prefix + member.name, buffer, a.*member.pointer);
      }
    });
  }
};

// Every array of `a` in a buffer of `space` and the view of them. With
// `guard_words` > 0, every nonempty array lies between guard zones
// (spmv/memory/buffer.hpp: upload_array).
template <ListsMembers Matrix>
FormatBuffers<Matrix> upload(MemorySpace space, const Matrix& a, std::size_t guard_words = 0) {
  using Buffers = FormatBuffers<Matrix>;
  Buffers b;
  detail::each_index(std::make_index_sequence<Buffers::kCount>{}, [&](auto i) {
    const auto& member = a.*std::get<i>(Buffers::kMembers).pointer;
    if constexpr (ListsMembers<std::remove_cvref_t<decltype(member)>>) {
      std::get<i>(b.stored) = upload(space, member, guard_words);
    } else {
      std::get<i>(b.stored) = upload_array(space, member, guard_words);
    }
  });
  b.view =
      std::apply([&a](const auto&... stored) { return contract_view(a, detail::device_side(stored)...); }, b.stored);
  return b;
}

}  // namespace spmv
