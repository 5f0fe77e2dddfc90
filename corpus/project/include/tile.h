// corpus: project
// Built only with its project's flags (compile_commands.json): TILE comes from the build.
#pragma once
#ifndef TILE
#error "TILE is set by the build (compile_commands.json: -DTILE=...)"
#endif

consteval int tile_elements() { return TILE; }  // C++20: the database asks for -std=c++20
