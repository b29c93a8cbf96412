#!/bin/sh
echo setting up
