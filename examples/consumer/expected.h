// Written by make_expected.py (PyTorch reference outputs). Do not edit.
#pragma once

constexpr float kCnnExpected[] = {0.118407995f,  0.0828795359f, 0.0914263502f, 0.102609217f,
                                  0.0767344162f, 0.101025753f,  0.115015753f,  0.0850252137f,
                                  0.0915918499f, 0.135283917f};
constexpr float kMlpExpected[] = {0.0143988039f, 0.0997254997f, 0.146125823f,  0.00922383741f,
                                  0.254201084f,  0.0541497059f, 0.0501167253f, 0.00854491536f,
                                  0.0319942757f, 0.331519365f};
