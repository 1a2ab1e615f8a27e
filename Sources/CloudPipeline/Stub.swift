enum PipelineStub {}
