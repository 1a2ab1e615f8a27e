import Hummingbird
import GRDB
import Prometheus
import MultipartKit
enum ServiceStub {}
