#pragma once
// ember::nn: modules, containers, layers, initialisation and utilities.
#include "ember/nn/init.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/attention.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/rnn.h"
#include "ember/nn/modules/transformer.h"
#include "ember/nn/utils.h"
