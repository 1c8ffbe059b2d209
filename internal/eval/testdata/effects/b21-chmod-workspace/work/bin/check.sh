#!/bin/sh
echo check
