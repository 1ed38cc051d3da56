//===- Stats.cpp - jfa-interp's --stats tables ----------------------------===//
#include "lib/Interpreter/Stats.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <map>
#include <vector>

using namespace mlir;

namespace jfa::interp {

/// Prints rows of cells as columns: the first `textColumns` left-aligned,
/// the rest (numbers) right-aligned, two spaces apart.
void printTable(llvm::raw_ostream &os,
                const std::vector<std::vector<std::string>> &rows,
                size_t textColumns) {
  std::vector<size_t> widths;
  for (const auto &row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (auto [i, cell] : llvm::enumerate(row))
      widths[i] = std::max(widths[i], cell.size());
  }
  for (const auto &row : rows) {
    std::string line = "  ";
    for (auto [i, cell] : llvm::enumerate(row)) {
      if (i)
        line += "  ";
      std::string pad(widths[i] - cell.size(), ' ');
      line += i < textColumns ? cell + pad : pad + cell;
    }
    os << StringRef(line).rtrim() << "\n";
  }
}

void printStats(llvm::raw_ostream &os, const Twine &title,
                ArrayRef<std::string> labels, ArrayRef<ExecStats> stats) {
  ExecStats all;
  for (const ExecStats &s : stats)
    all.add(s);
  auto num = [](uint64_t n) { return std::to_string(n); };
  os << "jfa-interp stats: " << title << "\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "executor", "ops", "TMA loads", "bytes loaded",
                  "TMA stores", "bytes stored", "MMAs", "mbarrier waits",
                  "blocked", "named-barrier syncs"});
  auto counters = [&](std::string index, std::string label,
                      const ExecStats &s) {
    rows.push_back({std::move(index), std::move(label), num(s.numOps),
                    num(s.tmaLoads), num(s.tmaLoadBytes), num(s.tmaStores),
                    num(s.tmaStoreBytes), num(s.mmas), num(s.mbarrierWaits),
                    num(s.mbarrierWaitsBlocked), num(s.namedSyncs)});
  };
  for (auto [i, label, s] : llvm::enumerate(labels, stats))
    counters("#" + num(i), label, s);
  counters("", "all", all);
  printTable(os, rows, 2);

  // The op counts, one column per executor, sorted by op name.
  std::map<std::string, OperationName> names;
  for (const auto &[name, n] : all.ops)
    names.emplace(name.getStringRef().str(), name);
  rows.clear();
  std::vector<std::string> header = {"op"};
  for (size_t i = 0; i < stats.size(); ++i)
    header.push_back("#" + num(i));
  header.push_back("all");
  rows.push_back(std::move(header));
  for (const auto &[text, name] : names) {
    std::vector<std::string> row = {text};
    for (const ExecStats &s : stats)
      row.push_back(num(s.ops.lookup(name)));
    row.push_back(num(all.ops.lookup(name)));
    rows.push_back(std::move(row));
  }
  printTable(os, rows, 1);
}

} // namespace jfa::interp
